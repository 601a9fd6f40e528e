import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emptyState, fingerprint } from '../../src/state/index.js';

// Fingerprints are remembered per state object (one HMAC per distinct value in a plan of thousands of
// websites); remembering must never change what they are.

const expected = (salt: string, field: string, value: unknown) =>
  createHmac('sha256', salt)
    .update(`${field}\0${JSON.stringify(value)}`)
    .digest('base64url');

describe('fingerprint', () => {
  it('is the salted HMAC of the field and the value, computed or remembered', () => {
    const state = emptyState('https://stats.example.com');
    for (let round = 0; round < 2; round++) {
      expect(fingerprint(state, 'exclude_params', ['a', 'b'])).toBe(
        expected(state.salt, 'exclude_params', ['a', 'b']),
      );
      expect(fingerprint(state, 'password', 'hunter2')).toBe(expected(state.salt, 'password', 'hunter2'));
    }
  });

  it('tells values and fields apart', () => {
    const state = emptyState('https://stats.example.com');
    const seen = new Set([
      fingerprint(state, 'exclude_params', []),
      fingerprint(state, 'exclude_params', ['a']),
      fingerprint(state, 'exclude_ips', []),
      fingerprint(state, 'password', '[]'),
    ]);
    expect(seen.size).toBe(4);
  });

  it('follows a change of salt on the same state object', () => {
    const state = emptyState('https://stats.example.com');
    const before = fingerprint(state, 'password', 'x');
    state.salt = 'another-salt-of-sixteen';
    expect(fingerprint(state, 'password', 'x')).toBe(expected('another-salt-of-sixteen', 'password', 'x'));
    expect(fingerprint(state, 'password', 'x')).not.toBe(before);
  });

  it('depends on the salt, not on the object', () => {
    const a = emptyState('https://stats.example.com');
    const b = { ...a };
    expect(fingerprint(b, 'exclude_ips', ['1.2.3.4'])).toBe(fingerprint(a, 'exclude_ips', ['1.2.3.4']));
  });
});

describe('fingerprint of frozen values', () => {
  it('is the same whether the list is frozen (known by identity) or not', () => {
    const state = emptyState('https://stats.example.com');
    const frozen = Object.freeze(['a', 'b']);
    expect(fingerprint(state, 'exclude_params', frozen)).toBe(
      expected(state.salt, 'exclude_params', ['a', 'b']),
    );
    expect(fingerprint(state, 'exclude_params', frozen)).toBe(
      fingerprint(state, 'exclude_params', ['a', 'b']),
    );
    expect(fingerprint(state, 'exclude_ips', frozen)).toBe(expected(state.salt, 'exclude_ips', ['a', 'b']));
  });

  it('never serves a changed (unfrozen) list from memory', () => {
    const state = emptyState('https://stats.example.com');
    const list = ['a'];
    const before = fingerprint(state, 'exclude_params', list);
    list.push('b');
    expect(fingerprint(state, 'exclude_params', list)).not.toBe(before);
  });
});
