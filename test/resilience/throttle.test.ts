import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { syncOnce, tempStatePath } from '../helpers/harness.js';
import { expectAccount, FAST_RETRY, manifestOf, testSites } from './helpers.js';

// A rate limit of 10 requests per 2-second window (the service's fixed window, started by the first
// request), 30 creates at concurrency 8. Without pacing, every window would open with a burst of 429s
// retried in step. With it, the run waits for each window instead: few 429s, and about as long as the
// limit requires, measured on the simulator's own request log.

const LIMIT = 10;
const WINDOW_MS = 2_000;

let simulator: Simulator;
afterEach(async () => {
  await simulator?.close();
});

describe('a 10-requests-per-2-seconds rate limit', () => {
  it('creates 30 websites at concurrency 8 with few 429s, in about the time the limit allows', async () => {
    const sites = testSites(30);
    simulator = await startSimulator({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } });
    const statePath = await tempStatePath();
    const manifest = manifestOf(sites);

    const run = await syncOnce({ simulator, manifest, statePath, retry: FAST_RETRY, concurrency: 8 });
    expect(run.applied?.failed).toBe(0);
    expectAccount(simulator, sites);

    const answered = simulator.requests.filter((r) => r.status !== 429);
    const throttled = simulator.requests.filter((r) => r.status === 429);
    // The listing and the account's plan (issue 20), then the stores.
    expect(answered.map((r) => r.status)).toEqual([200, 200, ...Array(30).fill(201)]);
    expect(throttled.length).toBeLessThanOrEqual(3);

    // 32 accepted requests need 4 windows: the last one cannot come before 3 windows have passed.
    // Pacing waits a second past each predicted end (the service counts whole seconds, so an early
    // guess would cost a 429): with 2-second windows that is at most a second per window on top.
    const times = simulator.requests.map((r) => r.at);
    const span = Math.max(...times) - Math.min(...times);
    expect(span).toBeGreaterThanOrEqual(3 * WINDOW_MS);
    expect(span).toBeLessThan(3 * WINDOW_MS + 4 * 1_000);
  });

  it('draws no 429 at all when the window is known (--rate-window), its whole seconds included', async () => {
    const sites = testSites(30);
    simulator = await startSimulator({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } });
    const statePath = await tempStatePath();
    const run = await syncOnce({
      simulator,
      manifest: manifestOf(sites),
      statePath,
      retry: FAST_RETRY,
      concurrency: 8,
      rateWindowMs: WINDOW_MS,
    });
    expect(run.applied?.failed).toBe(0);
    expectAccount(simulator, sites);
    expect(simulator.requests.filter((r) => r.status === 429)).toEqual([]);
  });
});
