import { describe, expect, it, vi } from 'vitest';
import {
  announcedWait,
  createRetryPolicy,
  DEFAULT_RETRY,
  parseRetryAfter,
  RETRY_ERROR_CODES,
  RETRY_METHODS,
  RETRY_STATUS_CODES,
  retryDelayMs,
} from '../../src/service/retry-policy.js';

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

  it.each(['-5', '1.5', '1e3', '0x10', 'soon', 'Mon 5', 'May 5', 'Jan 1', '5 Dec'])(
    'backs off as without one when Retry-After is %j, which is not whole seconds or a date',
    (value) => {
      expect(retryDelayMs(3, value, tuning, () => 0)).toBe(200);
    },
  );
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  it.each(['5', 'Mon 5', '1.5'])(
    'reads the window end from this clock when the Date header is %j, which is no HTTP date',
    (date) => {
      const reset = String(now / 1000 + 30);
      expect(announcedWait(429, { date, 'x-ratelimit-reset': reset }, now)?.ms).toBe(30_000);
    },
  );

  it.each([
    ['an IMF-fixdate', 'Fri, 27 Nov 2026 12:00:30 GMT'],
    ['an RFC 850 date', 'Friday, 27-Nov-26 12:00:30 GMT'],
    ['an asctime date (in GMT, whatever the local time zone)', 'Fri Nov 27 12:00:30 2026'],
  ])('reads %s', (_, value) => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(parseRetryAfter(value, now)).toBe(30_000);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('createRetryPolicy', () => {
  const policy = createRetryPolicy({ ...tuning, maxRetries: 3 });

  /** Runs the policy on one failure; returns 'retry' (after fake time passes) or 'stop'. */
  function decide(method: string, failure: object, counter = 1): { decision: string; afterMs: number } {
    vi.useFakeTimers();
    try {
      let decision = 'pending';
      const start = Date.now();
      let decidedAt = start;
      const err = Object.assign(new Error('failed'), failure);
      policy(
        err,
        { state: { counter }, opts: { method, path: '/', retryOptions: RETRY_OPTIONS } } as never,
        (e) => {
          decision = e ? 'stop' : 'retry';
          decidedAt = Date.now();
        },
      );
      vi.advanceTimersByTime(10 * 60_000);
      return { decision, afterMs: decidedAt - start };
    } finally {
      vi.useRealTimers();
    }
  }

  const RETRY_OPTIONS = {
    methods: RETRY_METHODS,
    statusCodes: RETRY_STATUS_CODES,
    errorCodes: RETRY_ERROR_CODES,
  };
  const status = (statusCode: number, headers = {}) => ({ code: 'UND_ERR_REQ_RETRY', statusCode, headers });

  it.each(['GET', 'PUT', 'PATCH', 'DELETE'])(
    'retries %s after 5xx, 429, resets and every timeout',
    (method) => {
      for (const failure of [
        status(500),
        status(502),
        status(503),
        status(504),
        status(429),
        { code: 'ECONNRESET' },
        { code: 'UND_ERR_SOCKET' },
        { code: 'UND_ERR_CONNECT_TIMEOUT' },
        { code: 'UND_ERR_HEADERS_TIMEOUT' },
        { code: 'UND_ERR_BODY_TIMEOUT' },
      ]) {
        expect(decide(method, failure).decision, JSON.stringify(failure)).toBe('retry');
      }
    },
  );

  it('never retries a store, except after a 429', () => {
    for (const failure of [
      status(500),
      status(503),
      { code: 'ECONNRESET' },
      { code: 'UND_ERR_HEADERS_TIMEOUT' },
    ]) {
      expect(decide('POST', failure).decision, JSON.stringify(failure)).toBe('stop');
    }
    expect(decide('POST', status(429)).decision).toBe('retry');
  });

  it('does not retry other statuses, or beyond maxRetries', () => {
    for (const code of [400, 401, 403, 404, 422]) expect(decide('GET', status(code)).decision).toBe('stop');
    expect(decide('GET', status(503), 4).decision).toBe('stop');
  });

  it('waits a Retry-After beyond undici’s 30 s cap in full', () => {
    const { decision, afterMs } = decide('GET', status(429, { 'retry-after': '45' }));
    expect(decision).toBe('retry');
    expect(afterMs).toBeGreaterThanOrEqual(45_000);
    expect(afterMs).toBeLessThan(45_250);
  });
});

describe('a Retry-After longer than websites-sync waits', () => {
  const policy = createRetryPolicy({ ...tuning, maxRetries: 3, maxRetryAfterMs: 5 * 60_000 });
  const decideNow = (retryAfter: string): string => {
    let decision = 'pending';
    const err = Object.assign(new Error('failed'), {
      code: 'UND_ERR_REQ_RETRY',
      statusCode: 429,
      headers: { 'retry-after': retryAfter },
    });
    const opts = { method: 'GET', path: '/', retryOptions: { methods: ['GET'], statusCodes: [429] } };
    policy(err, { state: { counter: 1 }, opts } as never, (e) => {
      decision = e ? 'stop' : 'retry';
    });
    return decision;
  };

  it.each([
    ['seconds', '86400'],
    ['an HTTP date', new Date(Date.now() + 2 * 3_600_000).toUTCString()],
  ])('in %s: not retried (a retry before then meets the same refusal)', (_form, retryAfter) => {
    expect(decideNow(retryAfter)).toBe('stop');
  });
});
