import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, retryDelayMs } from '../../src/service/retry-policy.js';

const tuning = { ...DEFAULT_RETRY, minDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 120_000 };

describe('retryDelayMs', () => {
  it.each([
    { attempt: 1, random: 0, expected: 50 },
    { attempt: 1, random: 0.999, expected: 99 },
    { attempt: 3, random: 0, expected: 200 },
    { attempt: 10, random: 0, expected: 500 },
  ])(
    'backs off exponentially with jitter (attempt $attempt, random $random)',
    ({ attempt, random, expected }) => {
      expect(retryDelayMs(attempt, undefined, tuning, () => random)).toBe(expected);
    },
  );

  it('honours Retry-After in full, beyond the backoff cap', () => {
    expect(retryDelayMs(1, '45', tuning, () => 0)).toBe(45_000);
  });

  it('bounds an absurd Retry-After', () => {
    expect(retryDelayMs(1, '86400', tuning, () => 0)).toBe(120_000);
  });

  it('reads Retry-After as an HTTP date', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const delay = retryDelayMs(1, inTenSeconds, tuning, () => 0);
    expect(delay).toBeGreaterThan(8_000);
    expect(delay).toBeLessThanOrEqual(10_000);
  });
});
