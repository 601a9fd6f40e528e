import { describe, expect, it } from 'vitest';
import { canonicalDomain, serviceStoredDomain } from '../../src/model/index.js';
import { canonicalDomain as simulatorStores } from '../../src/simulator/index.js';
import { phpStore, wwwNames } from '../helpers/www-names.js';

// Issue 11, fact 1: what the client predicts must be what the service stores for what it sends.
describe("the service's store rule", () => {
  it.each([
    ['www.wwww.ww.x-example.com', 'www.x-example.com'],
    ['htthttps://p://x.example.com', 'x.example.com'],
    ['hthttp://tp://x.example.com', 'http://x.example.com'],
    ['www.www.dup.example.org', 'dup.example.org'],
    ['shop.www.example.net', 'shop.www.example.net'],
  ])('the simulator stores %s as %s, as the service does', (sent, stored) => {
    expect(phpStore(sent)).toBe(stored);
    expect(simulatorStores(sent)).toBe(stored);
  });

  it('the simulator applies exactly the transliterated PHP rule to generated names', () => {
    for (const name of wwwNames(2000, 11)) expect(serviceStoredDomain(name)).toBe(phpStore(name));
  });

  it('a create sends the name the prediction was made from, and the service stores the prediction', () => {
    const names = wwwNames(2000, 5);
    let checked = 0;
    for (const name of names) {
      const result = canonicalDomain(name);
      if ('error' in result) continue;
      const sent = result.written ?? result.domain;
      expect({ name, stored: phpStore(sent) }).toEqual({ name, stored: result.domain });
      checked++;
    }
    expect(checked).toBeGreaterThan(1500);
  });
});
