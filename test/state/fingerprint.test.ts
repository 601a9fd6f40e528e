import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emptyState, fingerprint, fingerprintKey } from '../../src/state/index.js';

// Fingerprints are remembered per state object (one HMAC per distinct value in a plan of thousands of
// websites); remembering must never change what they are.

const expected = (key: string, field: string, value: unknown) =>
  createHmac('sha256', key)
    .update(`${field}\0${JSON.stringify(value)}`)
    .digest('base64url');

describe('fingerprint', () => {
  it('is the HMAC of the field and the value keyed by the secret and the salt, computed or remembered', () => {
    const state = emptyState('https://stats.example.com');
    for (let round = 0; round < 2; round++) {
      expect(fingerprint(state, 'exclude_params', ['a', 'b'])).toBe(
        expected(state.key, 'exclude_params', ['a', 'b']),
      );
      expect(fingerprint(state, 'password', 'hunter2')).toBe(expected(state.key, 'password', 'hunter2'));
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

  it('follows a change of key on the same state object', () => {
    const state = emptyState('https://stats.example.com');
    const before = fingerprint(state, 'password', 'x');
    state.key = fingerprintKey('another secret', state.salt);
    expect(fingerprint(state, 'password', 'x')).toBe(expected(state.key, 'password', 'x'));
    expect(fingerprint(state, 'password', 'x')).not.toBe(before);
  });

  it('cannot be recomputed from the file alone: the key depends on a secret the file does not hold', () => {
    const a = emptyState('https://stats.example.com', 'api-key-one');
    const b = { ...a, key: fingerprintKey('api-key-two', a.salt) };
    expect(fingerprint(a, 'password', '123456')).not.toBe(fingerprint(b, 'password', '123456'));
    expect(fingerprint(a, 'password', '123456')).not.toBe(expected(a.salt, 'password', '123456'));
  });

  it('depends on the key, not on the object', () => {
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
      expected(state.key, 'exclude_params', ['a', 'b']),
    );
    expect(fingerprint(state, 'exclude_params', frozen)).toBe(
      fingerprint(state, 'exclude_params', ['a', 'b']),
    );
    expect(fingerprint(state, 'exclude_ips', frozen)).toBe(expected(state.key, 'exclude_ips', ['a', 'b']));
  });

  it('never serves a changed (unfrozen) list from memory', () => {
    const state = emptyState('https://stats.example.com');
    const list = ['a'];
    const before = fingerprint(state, 'exclude_params', list);
    list.push('b');
    expect(fingerprint(state, 'exclude_params', list)).not.toBe(before);
  });
});
