import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/service/index.js';
import { type Fixture, manifestText, metricValue, saveByRename, startFixture } from './fixture.js';

// Issue 14 §1: periodic resyncs read at their share of the key's limit; a run the operator asked for
// (a manifest change, SIGHUP) and every apply use all of it; /metrics shows the budget and the use.
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A budget that remembers every share put in force. */
class RecordingBudget extends RateBudget {
  readonly shares: number[] = [];
  override use(fraction: number): void {
    this.shares.push(fraction);
    super.use(fraction);
  }
}

describe('daemon: the rate budget', () => {
  it('reads at the periodic share, applies at the whole limit, and runs asked for go at the whole limit', async () => {
    const budget = new RecordingBudget({ fraction: 0.5, windowMs: 60_000 });
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }]),
      daemon: { rateBudget: { budget, periodic: 0.3 } },
    });
    fixture = f;
    await f.runAfter(0); // start: a read at 30%, then a create at 100%
    expect(budget.shares).toEqual([0.3, 1]);
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1); // asked for, converged: no apply
    expect(budget.shares.slice(2)).toEqual([1]);
    await saveByRename(f.file, manifestText([{ domain: 'a.example.com' }, { domain: 'b.example.com' }]));
    await f.runAfter(2);
    expect(budget.shares.slice(3)).toEqual([1, 1]);
  });

  it('shows the budget, the limit and the measured use on /metrics', async () => {
    const budget = new RateBudget({ fraction: 0.5, windowMs: 60_000 });
    const f = await startFixture({
      manifest: manifestText([]),
      simulator: { rateLimit: { limit: 60, windowMs: 60_000 } },
      budget,
      daemon: { rateBudget: { budget, periodic: 0.5 } },
    });
    fixture = f;
    f.metrics.watchRate(budget);
    await f.runAfter(0);
    const text = await (await fetch(f.url('/metrics'))).text();
    expect(metricValue(text, 'websites_sync_rate_budget_ratio')).toBe(0.5);
    expect(metricValue(text, 'websites_sync_rate_limit_requests')).toBe(60);
    // One listing request and the account's plan, of 60 allowed this minute.
    expect(metricValue(text, 'websites_sync_rate_used_ratio')).toBeCloseTo(2 / 60, 5);
  });
});
