import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptInfo } from '../../src/service/attempt-types.js';
import { RateBudget } from '../../src/service/budget.js';
import { HttpTransport } from '../../src/service/http.js';
import { Pacer } from '../../src/service/pacing.js';
import { NotSentError } from '../../src/service/stop.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { FakeClock } from '../helpers/fake-clock.js';

// Issue 19 §5: every wait of the client ends when the run stops, whatever it waits for: the rate
// limit's window (Pacer), the key's budget (RateBudget), a retry's pause (Retry-After up to 5 min).

const throttled: AttemptInfo = {
  method: 'GET',
  path: '/api/v1/websites',
  status: 429,
  headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'retry-after': '3600' },
};

describe('a wait for its turn, stopped', () => {
  it('Pacer: gives up its place at once, and the window timer nobody waits for is cancelled', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    expect(pacer.acquire()).toBeUndefined();
    pacer.release(throttled);
    const stop = new AbortController();
    const wait = pacer.acquire(stop.signal);
    expect(wait).toBeDefined();
    expect(clock.timers).toHaveLength(1);
    stop.abort(new Error('stopping'));
    await expect(wait).rejects.toThrow('stopping');
    expect(clock.timers).toEqual([]);
  });

  it('RateBudget: gives up its place at once; the others keep theirs', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ fraction: 0.5, windowMs: 60_000, clock });
    budget.hooks.beforeAttempt?.();
    budget.hooks.afterAttempt?.({ ...throttled, status: 200 });
    const stop = new AbortController();
    const stopped = budget.hooks.beforeAttempt?.(stop.signal);
    const kept = budget.hooks.beforeAttempt?.();
    let keptStarted = false;
    void kept?.then(() => {
      keptStarted = true;
    });
    stop.abort(new Error('stopping'));
    await expect(stopped).rejects.toThrow('stopping');
    // One attempt every 2 s at half of 60 a minute: the one that stayed goes first now.
    clock.advance(2_000);
    await kept;
    expect(keptStarted).toBe(true);
    expect(clock.timers).toEqual([]);
  });

  it('an already stopped signal never queues', async () => {
    const pacer = new Pacer({ clock: new FakeClock() });
    pacer.acquire();
    pacer.release(throttled);
    await expect(pacer.acquire(AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped');
  });
});

describe('a retry waiting for a Retry-After of 4 minutes, stopped', () => {
  let simulator: Simulator;
  afterEach(() => simulator.close());

  it('ends at once as not sent; the service saw only the throttled attempt', async () => {
    simulator = await startSimulator({ faults: { script: ['throttle'], throttleRetryAfterSeconds: 240 } });
    let retryScheduled: () => void = () => {};
    const scheduled = new Promise<void>((resolve) => {
      retryScheduled = resolve;
    });
    const http = new HttpTransport({
      baseUrl: simulator.url,
      apiKey: simulator.apiKey,
      userAgent: 'websites-sync/test',
      timeoutMs: 2_000,
      hooks: { onRetry: () => retryScheduled() },
    });
    const request = http.request('POST', '/api/v1/websites', {
      form: new URLSearchParams({ domain: 'a.example.com' }),
    });
    await scheduled;
    const stoppedAt = Date.now();
    http.stop();
    await expect(request).rejects.toBeInstanceOf(NotSentError);
    // At once, beside the 4 minutes it would otherwise wait (a loaded machine's timers given their slack).
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(simulator.requests.map((r) => r.status)).toEqual([429]);
    await http.close();
  });
});
