import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isProtected,
  loadState,
  markProtected,
  pendingSince,
  recordApplied,
  recordedFingerprint,
  recordLifecycle,
  saveState,
} from '../../src/state/index.js';

const BASE = 'https://stats.example.com';

describe('state: protection and pending deletes', () => {
  it('are read entry by entry: a malformed entry is dropped alone', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'websites-sync-state-')), 'state.json');
    await writeFile(
      path,
      JSON.stringify({
        version: 1,
        base_url: BASE,
        salt: '0123456789abcdef0123',
        websites: {},
        protected: { '7': { domain: 'a.example.com' }, '8': 'yes', x: { domain: 'b.example.com' } },
        pending_deletes: {
          '9': { domain: 'c.example.com', since: '2026-11-24T10:00:00.000Z' },
          '10': { domain: 'd.example.com', since: 'yesterday' },
        },
      }),
    );
    const { state, discarded, unusable } = await loadState(path, BASE, 'secret');
    // The rest is used; the file is reported so that it is kept aside before it is rewritten.
    expect(discarded).toBe(
      'some of its entries cannot be read (protection: 1 entry, pending delete: 1 entry)',
    );
    expect(unusable?.partial).toBe(true);
    expect(state.protected).toEqual({ '7': { domain: 'a.example.com' }, x: { domain: 'b.example.com' } });
    expect(isProtected(state, 7)).toBe(true);
    expect(isProtected(state, 8)).toBe(false);
    expect(isProtected(state, 'x')).toBe(true);
    expect(pendingSince(state, 9)).toBe('2026-11-24T10:00:00.000Z');
    expect(pendingSince(state, 10)).toBeUndefined();
  });

  // Ids are opaque: whatever the service shows (`w-prot`, `07`, even `__proto__`) is remembered by it.
  it('remember protections, pending deletes and fingerprints by any id, across a save and a load', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'websites-sync-state-')), 'state.json');
    const { state: first } = await loadState(path, BASE, 'secret');
    const ids = ['w-prot', '07', '__proto__', 'constructor', 'a b/c', 12];
    for (const id of ids) {
      markProtected(first, { id, domain: `${id}.example.com` });
      recordApplied(first, { id, domain: `${id}.example.com` }, 'exclude_params', ['utm']);
    }
    const since = '2026-11-24T10:00:00.000Z';
    recordLifecycle(first, {
      protect: [],
      unprotect: [],
      deleting: ids.map((id) => ({ id, domain: `${id}.example.com`, since })),
    });
    await saveState(path, first);
    expect(Object.keys(JSON.parse(await readFile(path, 'utf8')).protected).sort()).toEqual(
      ids.map(String).sort(),
    );

    const { state, discarded } = await loadState(path, BASE, 'secret');
    expect(discarded).toBeUndefined();
    for (const id of ids) {
      expect(isProtected(state, id)).toBe(true);
      expect(pendingSince(state, id)).toBe(since);
      expect(recordedFingerprint(state, id, 'exclude_params')).toBe(
        recordedFingerprint(first, id, 'exclude_params'),
      );
    }
    // Nothing is found under an id that was never recorded (`toString` is on every plain object).
    expect(isProtected(state, 'toString')).toBe(false);
    expect(pendingSince(state, 'w-other')).toBeUndefined();
    expect(recordedFingerprint(state, 'hasOwnProperty', 'exclude_params')).toBeUndefined();
  });
});
