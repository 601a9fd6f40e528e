import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/service/http.js';
import { connectService } from '../../src/service/index.js';
import { ThrottleWatch } from '../../src/service/throttle-watch.js';

const FIVE_MINUTES_MS = 5 * 60_000;

/** A watch on two clocks the test moves: the wall clock, which can be set, and a monotonic one. */
function onClocks() {
  const clock = { wall: Date.UTC(2026, 10, 27, 8, 0, 0), elapsed: 1_000 };
  const watch = new ThrottleWatch(
    FIVE_MINUTES_MS,
    () => clock.wall,
    () => clock.elapsed,
  );
  return { watch, clock };
}

/** The service `server` plays, listening on an ephemeral port, and a client of it (one request at a time). */
async function clientOf(server: Server): Promise<ReturnType<typeof connectService>> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return connectService({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'k',
    version: 'test',
    timeoutMs: 2_000,
    concurrency: 1,
    redact: (text) => text,
  });
}

describe('ThrottleWatch', () => {
  it('a 429 asking for longer than the cap: nothing is sent until that time, then requests go again', () => {
    let now = Date.UTC(2026, 10, 27, 8, 0, 0);
    const watch = new ThrottleWatch(FIVE_MINUTES_MS, () => now);
    expect(watch.seen(429, { 'retry-after': '600' })).toBe(
      'the service asked to wait 10 minutes (Retry-After, until 2026-11-27T08:10:00Z), longer than the 5 minutes websites-sync waits: not retried, and nothing more is sent until then; run again later',
    );
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).toThrow(
      'GET /api/v1/websites: not sent: the service asked to wait 10 minutes (until 2026-11-27T08:10:00Z) in an earlier 429',
    );
    now += 600_000;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).not.toThrow();
  });

  it.each([
    [200, '86400'],
    [429, '300'],
    [429, undefined],
    [429, 'soon'],
  ])('%i with Retry-After %s: within what is retried, nothing held back', (status, retryAfter) => {
    const watch = new ThrottleWatch(FIVE_MINUTES_MS);
    expect(watch.seen(status, { 'retry-after': retryAfter })).toBeUndefined();
    expect(() => watch.beforeSending('GET', '/')).not.toThrow();
  });

  it('an absurd Retry-After (300 nines of seconds) says how long without a date it cannot name', () => {
    const watch = new ThrottleWatch(FIVE_MINUTES_MS);
    expect(watch.seen(429, { 'retry-after': '9'.repeat(300) })).toMatch(
      /^the service asked to wait more than a year \(Retry-After\), longer/,
    );
  });
});

describe('how long, in words', () => {
  it('a wait just past the cap is never said as the cap itself', () => {
    const watch = new ThrottleWatch(FIVE_MINUTES_MS);
    expect(watch.seen(429, { 'retry-after': '301' })).toMatch(
      /^the service asked to wait 6 minutes \(Retry-After, until .*\), longer than the 5 minutes/,
    );
  });

  it.each([
    ['7201', '2 hours'],
    ['172801', '2 days'],
    ['86400', '24 hours'],
  ])('a wait of %s s, far past the cap, is said as it is: %s, not a unit more', (seconds, said) => {
    const watch = new ThrottleWatch(FIVE_MINUTES_MS);
    expect(watch.seen(429, { 'retry-after': seconds })).toMatch(
      new RegExp(`^the service asked to wait ${said} \\(`),
    );
  });
});

describe('a 503 asking for a day (maintenance)', () => {
  it('is held to like a 429: not retried, nothing more sent until then', () => {
    const now = Date.UTC(2026, 10, 27, 8, 0, 0);
    const watch = new ThrottleWatch(FIVE_MINUTES_MS, () => now);
    expect(watch.seen(503, { 'retry-after': '86400' })).toMatch(
      /^the service asked to wait 24 hours \(Retry-After, until 2026-11-28T08:00:00Z\)/,
    );
    expect(() => watch.beforeSending('PATCH', '/api/v1/websites/7')).toThrow(
      'PATCH /api/v1/websites/7: not sent: the service asked to wait 24 hours (until 2026-11-28T08:00:00Z) in an earlier 503',
    );
  });
});

describe('a 429 whose window ends a day away, said only by X-RateLimit-Reset', () => {
  it('the watch reads it as it reads a Retry-After', () => {
    const now = Date.UTC(2026, 10, 27, 8, 0, 0);
    const watch = new ThrottleWatch(FIVE_MINUTES_MS, () => now);
    const reset = String(now / 1000 + 86_400);
    expect(watch.seen(429, { 'x-ratelimit-reset': reset })).toMatch(
      /^the service asked to wait 24 hours \(X-RateLimit-Reset, until 2026-11-28T08:00:00Z\)/,
    );
    // On another status, a window's end says nothing of this request.
    expect(
      new ThrottleWatch(FIVE_MINUTES_MS, () => now).seen(503, { 'x-ratelimit-reset': reset }),
    ).toBeUndefined();
  });

  it('a listing ends at once with one request, not five retries held five minutes each by the pacer', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(429, {
        'content-type': 'application/json',
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 86_400),
      });
      res.end('{"message":"Too Many Attempts."}');
    });
    const client = await clientOf(server);
    try {
      await expect(client.service.listWebsites()).rejects.toThrow(
        /^GET \/api\/v1\/websites: 429 Too Many Attempts\.: the service asked to wait 24 hours \(X-RateLimit-Reset, until /,
      );
      expect(requests).toBe(1);
    } finally {
      await client.close();
      await new Promise((done) => server.close(done));
    }
  });
});

describe('two long waits, the shorter answered last (requests in flight when the first came)', () => {
  it('what a request not sent says names the end of the longer wait, which is when requests go again', () => {
    let now = Date.UTC(2026, 10, 27, 8, 0, 0);
    const watch = new ThrottleWatch(
      FIVE_MINUTES_MS,
      () => now,
      () => now,
    );
    watch.seen(429, { 'retry-after': '3600' });
    const later = watch.seen(429, { 'retry-after': '600' });
    // Its own answer does not say requests go again at 08:10: they do at 09:00.
    expect(later).toMatch(
      /not retried, and nothing more is sent until 2026-11-27T09:00:00Z \(an earlier answer asked to wait longer\)/,
    );
    now += 600_000;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).toThrow(
      'GET /api/v1/websites: not sent: the service asked to wait 60 minutes (until 2026-11-27T09:00:00Z) in an earlier 429',
    );
    now += 3_000_000;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).not.toThrow();
  });
});

describe('a wait of days or years', () => {
  it('holds a day at most, then one request asks again: a daemon is never held for good', () => {
    const { watch, clock } = onClocks();
    const said = watch.seen(429, { 'retry-after': '9'.repeat(300) });
    expect(said).toContain('the service asked to wait more than a year');
    expect(said).toContain('nothing more is sent for 24 hours, then websites-sync asks again');
    clock.wall += 86_400_000 - 1;
    clock.elapsed += 86_400_000 - 1;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).toThrow(/not sent/);
    clock.wall += 1;
    clock.elapsed += 1;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).not.toThrow();
  });
});

describe("the machine's clock set back during a long wait", () => {
  it('requests go again once the time asked for has passed, not an hour later', () => {
    const { watch, clock } = onClocks();
    watch.seen(429, { 'retry-after': '600' });
    // 10 minutes pass; meanwhile the clock was corrected one hour back.
    clock.elapsed += 600_000;
    clock.wall += 600_000 - 3_600_000;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).not.toThrow();
  });

  it('nor later than the clock says, when the time passed while the machine slept', () => {
    const { watch, clock } = onClocks();
    watch.seen(503, { 'retry-after': '3600' });
    // Only the wall clock moves: a monotonic clock stands still while the machine is suspended.
    clock.wall += 3_600_000;
    expect(() => watch.beforeSending('GET', '/api/v1/websites')).not.toThrow();
  });
});

describe('a request waiting to be retried when a long throttle begins', () => {
  it('is not sent again: it fails at once with its own answer, as nothing more is sent until then', async () => {
    const paths: string[] = [];
    let firstAnswered: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      firstAnswered = resolve;
    });
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url?.startsWith('/api/v1/websites/1')) {
        // A gateway's 503 asking for a minute: within what websites-sync waits, so it is retried then.
        res.on('finish', firstAnswered);
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' });
        res.end('{"message":"Service Unavailable"}');
        return;
      }
      // Meanwhile another request is throttled for an hour.
      void answered.then(() => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
        res.end('{"message":"Too Many Attempts."}');
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const http = new HttpTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      userAgent: 'test',
      timeoutMs: 2_000,
      pacing: false,
    });
    try {
      const [first, second] = await Promise.allSettled([
        http.request('GET', '/api/v1/websites/1'),
        http.request('GET', '/api/v1/websites/2'),
      ]);
      expect(second.status === 'rejected' && String(second.reason)).toMatch(/429 Too Many Attempts\./);
      expect(first.status === 'rejected' && String(first.reason)).toMatch(/GET \/api\/v1\/websites\/1: 503/);
      expect(paths.filter((path) => path.startsWith('/api/v1/websites/1'))).toHaveLength(1);
    } finally {
      await http.close();
      await new Promise((done) => server.close(done));
    }
  });
});

describe("a service whose clock is not this machine's", () => {
  it('a window said to end in a second by its own clock (X-RateLimit-Reset, Date) is waited out, not read as two days', async () => {
    // The service's clock is two days ahead of this machine's; its Date header says so.
    const skewMs = 2 * 86_400_000;
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      const serverNow = Date.now() + skewMs;
      if (requests === 1) {
        res.writeHead(429, {
          'content-type': 'application/json',
          date: new Date(serverNow).toUTCString(),
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(serverNow / 1000) + 1),
        });
        res.end('{"message":"Too Many Attempts."}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', date: new Date(serverNow).toUTCString() });
      res.end('{"data":[],"links":{"next":null},"meta":{"current_page":1,"last_page":1,"total":0}}');
    });
    const client = await clientOf(server);
    try {
      await expect(client.service.listWebsites()).resolves.toEqual([]);
      expect(requests).toBe(2);
    } finally {
      await client.close();
      await new Promise((done) => server.close(done));
    }
  });
});
