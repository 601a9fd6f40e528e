import { describe, expect, it } from 'vitest';
import type { AttemptInfo } from '../../src/service/attempt-types.js';
import { RateBudget } from '../../src/service/budget.js';
import { Pacer } from '../../src/service/pacing.js';
import { FakeClock } from '../helpers/fake-clock.js';

// Issue 14 §1: a share of the key's limit for periodic resyncs, the whole of it for changes.

const answer = (limit: number): AttemptInfo => ({
  method: 'GET',
  path: '/api/v1/websites',
  status: 200,
  headers: { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '1' },
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Asks for `count` attempts at once; a live count of those let through. */
function ask(budget: RateBudget, count: number): () => number {
  let started = 0;
  for (let i = 0; i < count; i++) {
    const wait = budget.hooks.beforeAttempt?.();
    if (wait) void wait.then(() => started++);
    else started++;
  }
  return () => started;
}

describe('RateBudget', () => {
  it('spaces attempts so they use at most their share of each window', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ fraction: 0.5, windowMs: 60_000, clock });
    // The first answer tells the limit: 60 a minute, so 30 a minute for this budget, one every 2 s.
    ask(budget, 1);
    budget.hooks.afterAttempt?.(answer(60));
    const started = ask(budget, 40);
    await tick();
    expect(started()).toBe(0);
    for (let second = 0; second < 60; second++) clock.advance(1_000);
    await tick();
    // One every 2 s, and the 30th back must have left a window counted 2% longer (61.2 s): the one due
    // at 60 s waits until 61.2 s.
    expect(started()).toBe(29);
    expect(budget.used()).toBeLessThanOrEqual(0.5);
    clock.advance(1_200);
    await tick();
    expect(started()).toBe(30);
  });

  it('lets every attempt go at once when the whole limit is in force, or before a limit is known', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ fraction: 0.5, windowMs: 60_000, clock });
    expect(ask(budget, 5)()).toBe(5);
    budget.hooks.afterAttempt?.(answer(60));
    budget.use(1);
    expect(ask(budget, 50)()).toBe(50);
    expect(budget.fraction).toBe(1);
  });

  it('counts the attempts sent before the limit was known: no window holds more than the share', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ fraction: 0.5, windowMs: 1_000, clock });
    // A run's first two reads (the account's plan and the first list page) go before any answer.
    ask(budget, 2);
    budget.hooks.afterAttempt?.(answer(20));
    const started = ask(budget, 30);
    const startsByMs: number[] = [0, 0];
    for (let ms = 1; ms <= 3_000; ms++) {
      const before = started();
      clock.advance(1);
      await tick();
      for (let i = before; i < started(); i++) startsByMs.push(ms);
    }
    // Every window of 1 s, wherever it starts (the service's own are not ours), holds at most 10.
    for (const from of startsByMs) {
      expect(startsByMs.filter((at) => at >= from && at < from + 1_000).length).toBeLessThanOrEqual(10);
    }
    expect(startsByMs.length).toBeGreaterThan(20);
  });

  it('counts only the attempts of the last window as used', () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ fraction: 1, windowMs: 60_000, clock });
    ask(budget, 12);
    budget.hooks.afterAttempt?.(answer(60));
    expect(budget.used()).toBeCloseTo(0.2, 5);
    clock.advance(60_000);
    expect(budget.used()).toBe(0);
  });
});

describe('Pacer: a window other than --rate-window', () => {
  it('says so when a 429 shows a longer one, once per value', () => {
    const clock = new FakeClock();
    const seen: Array<{ configuredMs: number; observedMs: number }> = [];
    const pacer = new Pacer({ clock, windowMs: 60_000, onWindow: (info) => seen.push(info) });
    pacer.acquire();
    pacer.release({ ...answer(10), headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' } });
    clock.advance(5_000);
    pacer.acquire();
    const throttled = {
      method: 'GET',
      path: '/api/v1/websites',
      status: 429,
      headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'retry-after': '295' },
    };
    pacer.release(throttled);
    expect(seen).toEqual([{ configuredMs: 60_000, observedMs: 300_000 }]);
  });

  it('stays quiet when the answers agree with it', () => {
    const clock = new FakeClock();
    const seen: unknown[] = [];
    const pacer = new Pacer({ clock, windowMs: 60_000, onWindow: (info) => seen.push(info) });
    pacer.acquire();
    pacer.release({ ...answer(10), headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9' } });
    clock.advance(61_000);
    pacer.acquire();
    pacer.release({ ...answer(10), headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9' } });
    expect(seen).toEqual([]);
  });
});
