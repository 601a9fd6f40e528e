import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyState, loadState, recordApplied, saveState } from '../../src/state/index.js';

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
      reason: /another service/,
    },
  ])('treats a $name file as unknown', async ({ content, reason }) => {
    const path = await tempFile();
    if (content !== undefined) await writeFile(path, content);
    const loaded = await loadState(path, BASE, 'secret');
    expect(loaded.discarded).toMatch(reason);
    expect(loaded.state.websites).toEqual({});
  });
});
