import { describe, expect, it } from 'vitest';
import { ThrottleWatch } from '../../src/service/throttle-watch.js';

describe('ThrottleWatch', () => {
  const FIVE_MINUTES = 5 * 60_000;

  it('a 429 asking for longer than the cap: nothing is sent until that time, then requests go again', () => {
    let now = Date.UTC(2026, 10, 27, 8, 0, 0);
    const watch = new ThrottleWatch(FIVE_MINUTES, () => now);
    expect(watch.seen(429, '600')).toBe(
      'the service asked to wait 10 minutes (Retry-After, until 2026-11-27T08:10:00Z), longer than the 5 minutes websites-sync waits: not retried, and nothing more is sent until then; run again later',
    );
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).toThrow(
      'GET /api/v1/websites: not sent: the service throttles the key for 10 minutes (until 2026-11-27T08:10:00Z), as an earlier 429 said',
    );
    now += 600_000;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).not.toThrow();
  });

  it.each([
    [200, '86400'],
    [503, '86400'],
    [429, '300'],
    [429, undefined],
    [429, 'soon'],
  ])('%i with Retry-After %s: within what is retried, nothing held back', (status, retryAfter) => {
    const watch = new ThrottleWatch(FIVE_MINUTES);
    expect(watch.seen(status, retryAfter)).toBeUndefined();
    expect(() => watch.beforeSending('GET', '/')).not.toThrow();
  });

  it('an absurd Retry-After (1e300 seconds) says how long without a date it cannot name', () => {
    const watch = new ThrottleWatch(FIVE_MINUTES);
    expect(watch.seen(429, '1e300')).toMatch(
      /^the service asked to wait more than a year \(Retry-After\), longer/,
    );
  });
});
