import { describe, expect, it } from 'vitest';
import { readSettings, SlotCache } from '../../src/manifest/settings.js';

// Settings are validated once per distinct value and the result shared between websites; sharing
// must be invisible: the same slots as without the cache, and shared lists that nobody can change.

describe('SlotCache', () => {
  it('gives the same slots as a fresh reading', () => {
    const cache = new SlotCache();
    const raw = { privacy: 'public', email: 1, exclude_ips: ['203.0.113.7', ' 203.0.113.7 '], password: 7 };
    expect(readSettings(raw, cache)).toEqual(readSettings(raw));
    expect(readSettings(raw, cache)).toEqual(readSettings(raw));
  });

  it('does not confuse a value with its string, or a list with its JSON', () => {
    const cache = new SlotCache();
    expect(cache.read('email', true)).toEqual({ kind: 'ok', value: true });
    expect(cache.read('email', 'yes')).toEqual({ kind: 'invalid' });
    expect(cache.read('exclude_params', ['a'])).toEqual({ kind: 'ok', value: ['a'] });
    expect(cache.read('exclude_params', '["a"]')).toEqual({ kind: 'ok', value: ['["a"]'] });
  });

  it('shares one frozen list between the websites that write it', () => {
    const cache = new SlotCache();
    const first = cache.read('exclude_params', ['b', 'a']);
    const second = cache.read('exclude_params', ['b', 'a']);
    expect(first).toBe(second);
    if (first.kind !== 'ok') throw new Error('expected a valid list');
    expect(first.value).toEqual(['a', 'b']);
    expect(Object.isFrozen(first.value)).toBe(true);
  });

  it('validates lists of non-strings without caching them', () => {
    const cache = new SlotCache();
    expect(cache.read('exclude_ips', [1])).toEqual({ kind: 'invalid' });
  });
});
