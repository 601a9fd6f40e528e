import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProtected, loadState, pendingSince } from '../../src/state/index.js';

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
    const { state, discarded } = await loadState(path, BASE, 'secret');
    expect(discarded).toBeUndefined();
    expect(state.protected).toEqual({ '7': { domain: 'a.example.com' } });
    expect(isProtected(state, 7)).toBe(true);
    expect(isProtected(state, 8)).toBe(false);
    expect(pendingSince(state, 9)).toBe('2026-11-24T10:00:00.000Z');
    expect(pendingSince(state, 10)).toBeUndefined();
  });
});
