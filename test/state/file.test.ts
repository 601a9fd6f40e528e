import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  emptyState,
  keepAside,
  keptCopies,
  loadState,
  protectionsNotInForce,
  recordApplied,
  saveState,
  withPreviousSecrets,
} from '../../src/state/index.js';

const BASE = 'https://stats.example.com';

async function tempFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'ws-state-')), 'state.json');
}

describe('state file', () => {
  it('round-trips, with mode 0600 and no secret in clear', async () => {
    const path = await tempFile();
    const state = emptyState(BASE, 'secret');
    recordApplied(state, { id: 1, domain: 'a.example.com' }, 'password', 'hunter2-secret');
    await saveState(path, state);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, 'utf8')).not.toContain('hunter2-secret');
    expect(await readFile(path, 'utf8')).not.toContain(state.key);
    expect((await loadState(path, BASE, 'secret')).state).toEqual(state);
  });

  it('leaves an existing state file readable by its owner only, whatever mode it had', async () => {
    const path = await tempFile();
    await writeFile(path, '{}', { mode: 0o644 });
    await chmod(path, 0o644);
    await saveState(path, emptyState(BASE, 'secret'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it.each([
    { name: 'missing', content: undefined, reason: /no state file/ },
    { name: 'corrupt', content: '{"version": 1, "base_u', reason: /corrupt/ },
    {
      name: 'foreign',
      content: JSON.stringify({ ...emptyState('https://other.example') }),
      reason: /written for https:\/\/other\.example, not for this run's base URL/,
    },
  ])('treats a $name file as unknown', async ({ content, reason }) => {
    const path = await tempFile();
    if (content !== undefined) await writeFile(path, content);
    const loaded = await loadState(path, BASE, 'secret');
    expect(loaded.discarded).toMatch(reason);
    expect(loaded.state.websites).toEqual({});
  });
});

describe('a state file the tool cannot use', () => {
  const protectedState = () => ({
    ...emptyState(BASE, 'secret'),
    key: undefined,
    protected: { '7': { domain: 'keep.example.com' } },
    pending_deletes: { '8': { domain: 'old.example.com', since: '2026-01-01T00:00:00.000Z' } },
  });

  it('another service: unusable, with what it holds and both URLs in the reason', async () => {
    const path = await tempFile();
    await writeFile(path, JSON.stringify({ ...protectedState(), base_url: 'http://localhost:1' }));
    const loaded = await loadState(path, 'http://127.0.0.1:1', 'secret');
    expect(loaded.unusable?.reason).toBe(
      "it was written for http://localhost:1, not for this run's base URL http://127.0.0.1:1",
    );
    expect(loaded.unusable?.held).toMatchObject({ protectedIds: ['7'], pendingDeletes: 1 });
    expect(loaded.state.protected).toBeUndefined();
  });

  it.each(['https://STATS.example.com', 'https://stats.example.com/', 'https://stats.example.com:443'])(
    'the same service spelled %s is the same service',
    async (spelling) => {
      const path = await tempFile();
      await writeFile(path, JSON.stringify({ ...protectedState(), base_url: spelling }));
      const loaded = await loadState(path, BASE, 'secret');
      expect(loaded.unusable).toBeUndefined();
      expect(loaded.state.protected).toEqual({ '7': { domain: 'keep.example.com' } });
    },
  );

  it('entries it cannot read: the rest is used, and the file is reported unusable so it is kept', async () => {
    const path = await tempFile();
    await writeFile(
      path,
      JSON.stringify({
        ...protectedState(),
        protected: { '7': { domain: 'keep.example.com' }, '9': { dom: 1 } },
      }),
    );
    const loaded = await loadState(path, BASE, 'secret');
    expect(loaded.state.protected).toEqual({ '7': { domain: 'keep.example.com' } });
    expect(loaded.unusable).toMatchObject({
      partial: true,
      reason: 'some of its entries cannot be read (protection: 1 entry)',
    });
    expect(protectionsNotInForce(loaded.unusable?.held, loaded.state)).toEqual({
      ids: ['9'],
      domains: [],
      unknown: false,
    });
  });

  it('an unreadable or corrupt file may protect anything', async () => {
    const path = await tempFile();
    await writeFile(path, '{');
    const loaded = await loadState(path, BASE, 'secret');
    expect(loaded.unusable?.reason).toMatch(/corrupt/);
    expect(protectionsNotInForce(loaded.unusable?.held, loaded.state).unknown).toBe(true);
  });

  it('is kept aside with mode 0600, never over an earlier kept copy', async () => {
    const path = await tempFile();
    const at = new Date('2026-01-02T03:04:05.678Z');
    await writeFile(path, 'first', { mode: 0o644 });
    const first = await keepAside(path, at);
    await writeFile(path, 'second');
    const second = await keepAside(path, at);
    expect(first).toBe(`${path}.discarded-2026-01-02T03-04-05-678Z`);
    expect(second).not.toBe(first);
    expect(await readFile(first, 'utf8')).toBe('first');
    expect(await readFile(second, 'utf8')).toBe('second');
    expect((await stat(first)).mode & 0o777).toBe(0o600);
    expect((await keptCopies(path)).map((copy) => copy.path)).toEqual([first, second]);
  });
});

describe('the HMAC keys of previous API keys', () => {
  it('are never written, and one planted in the file is never used', async () => {
    const path = await tempFile();
    const state = withPreviousSecrets(emptyState(BASE, 'now'), ['old']);
    expect(state.previousKeys).toHaveLength(1);
    await saveState(path, state);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('previousKeys');
    // A key planted in the file would make a changed value look recorded: it is dropped on reading.
    const planted = { ...JSON.parse(text), previousKeys: ['chosen-by-whoever-wrote-the-file'] };
    await writeFile(path, JSON.stringify(planted));
    const loaded = await loadState(path, BASE, 'now');
    expect(loaded.state.previousKeys).toBeUndefined();
    expect(withPreviousSecrets(loaded.state, []).previousKeys).toBeUndefined();
  });
});
