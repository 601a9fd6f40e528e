import { describe, expect, it } from 'vitest';
import type { AttemptInfo } from '../../src/service/attempt-types.js';
import { Pacer, readRateHeaders } from '../../src/service/pacing.js';
import { FakeClock } from '../helpers/fake-clock.js';

function answer(status: number, headers: Record<string, string> = {}): AttemptInfo {
  return { method: 'GET', path: '/api/v1/websites', status, headers };
}

const ok = (limit: number, remaining: number) =>
  answer(200, { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining) });
const throttled = (retryAfter: number) =>
  answer(429, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'retry-after': String(retryAfter) });

/** Asks for `count` attempts; returns how many have been let through so far (a live count). */
function ask(pacer: Pacer, count: number): { started: () => number } {
  let started = 0;
  for (let i = 0; i < count; i++) {
    const wait = pacer.acquire();
    if (wait) void wait.then(() => started++);
    else started++;
  }
  return { started: () => started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Pacer', () => {
  it('does not pace a service that sends no rate-limit headers', () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    const attempts = ask(pacer, 50);
    expect(attempts.started()).toBe(50);
    pacer.release(answer(200));
    expect(pacer.acquire()).toBeUndefined();
  });

  it('keeps at most `remaining` attempts in flight', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    expect(pacer.acquire()).toBeUndefined();
    pacer.release(ok(10, 3));
    const attempts = ask(pacer, 8);
    await tick();
    expect(attempts.started()).toBe(3);
    pacer.release(ok(10, 2));
    await tick();
    // 2 left, 2 still in flight: nothing more may start.
    expect(attempts.started()).toBe(3);
  });

  it('with nothing left and no reset known, lets one attempt probe alone', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    expect(pacer.acquire()).toBeUndefined();
    pacer.release(ok(10, 0));
    const attempts = ask(pacer, 3);
    await tick();
    expect(attempts.started()).toBe(1);
  });

  it('pauses every attempt until the window a 429 announced has ended', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    expect(pacer.acquire()).toBeUndefined();
    pacer.release(throttled(2));
    const attempts = ask(pacer, 4);
    clock.advance(1_999);
    await tick();
    expect(attempts.started()).toBe(0);
    clock.advance(1);
    await tick();
    // A fresh window of 10: the four go at once.
    expect(attempts.started()).toBe(4);
  });

  it('learns the window from a 429 and waits for the next reset instead of probing', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    // Window 1 starts with the first answer, and runs out; the probe is refused until 2 s after that.
    pacer.acquire();
    pacer.release(ok(10, 9));
    clock.advance(100);
    pacer.acquire();
    pacer.release(ok(10, 0));
    pacer.acquire();
    // The service counts whole seconds: 2100 ms from the first answer's second is learned as 3 s.
    pacer.release(throttled(2));
    clock.advance(2_000);
    await tick();
    // Window 2 (at 2.1 s): it began at its first answer's second, 2 s; when it runs out, the next reset
    // is predicted a second late, never early: 2 s + 3 s + 1 s.
    pacer.acquire();
    pacer.release(ok(10, 9));
    pacer.acquire();
    pacer.release(ok(10, 0));
    const attempts = ask(pacer, 2);
    clock.advance(3_899);
    await tick();
    expect(attempts.started()).toBe(0);
    clock.advance(1);
    await tick();
    expect(attempts.started()).toBe(2);
  });

  it('takes a jump in remaining beyond what was in flight as a new window', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    pacer.acquire();
    pacer.release(ok(60, 1));
    pacer.acquire();
    pacer.release(ok(60, 59));
    const attempts = ask(pacer, 20);
    await tick();
    expect(attempts.started()).toBe(20);
  });

  it('does not take answers arriving out of order for a new window', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    pacer.acquire();
    pacer.release(ok(10, 6));
    expect(ask(pacer, 3).started()).toBe(3);
    pacer.release(ok(10, 3));
    // Counted before the previous one, answered after it: 3 is still what is left.
    pacer.release(ok(10, 5));
    const attempts = ask(pacer, 5);
    await tick();
    expect(attempts.started()).toBe(2);
  });

  it('does not take a slow answer, counted early in the window, for a new window', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    pacer.acquire();
    pacer.release(ok(10, 9));
    ask(pacer, 9); // the first of them is slow
    for (let left = 7; left >= 0; left--) pacer.release(ok(10, left));
    // The slow one was counted first: 8 remained for it. Nothing is left, whatever it says.
    pacer.release(ok(10, 8));
    const attempts = ask(pacer, 3);
    await tick();
    expect(attempts.started()).toBe(1); // the probe, alone
  });

  it('frees the slot of an attempt that failed below HTTP', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    pacer.acquire();
    pacer.release(ok(10, 1));
    expect(pacer.acquire()).toBeUndefined();
    const next = ask(pacer, 1);
    pacer.release({ ...answer(200), status: undefined, error: new Error('read ECONNRESET') });
    await tick();
    expect(next.started()).toBe(1);
    expect(pacer.inFlight).toBe(1);
  });

  it('bounds a pause announced by an absurd Retry-After', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, maxPauseMs: 1_000 });
    pacer.acquire();
    pacer.release(throttled(86_400));
    const attempts = ask(pacer, 1);
    clock.advance(1_000);
    await tick();
    expect(attempts.started()).toBe(1);
  });
});

describe('readRateHeaders', () => {
  it('reads Retry-After, else X-RateLimit-Reset (an epoch second)', () => {
    const now = 1_700_000_000_500;
    expect(readRateHeaders({ 'retry-after': '7', 'x-ratelimit-limit': '60' }, now)).toEqual({
      limit: 60,
      remaining: undefined,
      retryAfterMs: 7_000,
    });
    expect(readRateHeaders({ 'x-ratelimit-reset': '1700000003' }, now).retryAfterMs).toBe(2_500);
  });
});
