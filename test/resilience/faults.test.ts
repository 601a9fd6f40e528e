import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { syncOnce, tempStatePath } from '../helpers/harness.js';
import { countResults, expectAccount, FAST_RETRY, manifestOf, storesByDomain, testSites } from './helpers.js';

// Transient faults everywhere: 5xx answers and resets before the request takes effect, and 30% of the
// stores and updates committed and then answered with a reset (the answer is lost, the change is not).
// One run must still leave the account exactly as declared, nothing twice, and the next plan empty.

const FAULTS = { errorRate: 0.15, resetRate: 0.1, resetAfterCommitRate: 0.3 };

let simulator: Simulator;
afterEach(async () => {
  await simulator?.close();
});

describe('under 15% 5xx, 10% resets and 30% of writes committed then reset', () => {
  it('creates 30 websites in one run, none twice, and an immediate re-plan is empty', async () => {
    const sites = testSites(30);
    simulator = await startSimulator({ faults: { seed: 7, ...FAULTS } });
    const statePath = await tempStatePath();
    const manifest = manifestOf(sites);

    const run = await syncOnce({ simulator, manifest, statePath, retry: FAST_RETRY, concurrency: 4 });
    expect(run.applied?.failed).toBe(0);
    expect(run.applied?.authError).toBeUndefined();
    const results = countResults(run.applied?.outcomes ?? []);
    expect((results.created ?? 0) + (results.adopted ?? 0)).toBe(30);
    expectAccount(simulator, sites);

    // The faults did happen, lost stores included; a store was sent again only after a lookup.
    const statuses = simulator.requests.map((r) => r.status);
    expect(statuses.filter((s) => s === 'reset-after-commit').length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => s === 'reset').length).toBeGreaterThanOrEqual(5);
    for (const [domain, stores] of storesByDomain(simulator)) {
      const lookups = simulator.requests.filter((r) => r.method === 'GET' && r.query.search === domain);
      expect(lookups.length, domain).toBeGreaterThanOrEqual(stores - 1);
    }

    const again = await syncOnce({ simulator, manifest, statePath, retry: FAST_RETRY, dryRun: true });
    expect(again.plan.changes).toEqual([]);
  });

  it('updates and deletes an existing account in one run, and an immediate re-plan is empty', async () => {
    const sites = testSites(30);
    // Half of them exist with other settings, plus 4 websites the manifest does not list (under the mass-delete guard).
    const seeded = [
      ...sites.slice(0, 15).map((s) => ({ domain: s.domain, privacy: 1 as const, email: !s.email })),
      ...Array.from({ length: 4 }, (_, i) => ({ domain: `old${i}.example.com` })),
    ];
    simulator = await startSimulator({ websites: seeded, faults: { seed: 11, ...FAULTS } });
    const statePath = await tempStatePath();
    const manifest = manifestOf(sites, { prune: true });

    const run = await syncOnce({ simulator, manifest, statePath, retry: FAST_RETRY, concurrency: 4 });
    expect(run.applied?.failed).toBe(0);
    expect(run.plan.changes.map((c) => c.kind).sort()).toEqual(
      [...Array(15).fill('create'), ...Array(4).fill('delete'), ...Array(15).fill('update')].sort(),
    );
    expectAccount(simulator, sites);

    const again = await syncOnce({ simulator, manifest, statePath, retry: FAST_RETRY, dryRun: true });
    expect(again.plan.changes).toEqual([]);
  });
});

describe('a delete committed, then its answer lost', () => {
  // The retry meets a 404: the website is gone because the lost attempt deleted it, which the outcome
  // says ("deleted"), not that someone else had ("already-gone").
  it('is reported deleted', async () => {
    const websites = [{ domain: 'keep.example.com' }, { domain: 'old.example.com' }];
    simulator = await startSimulator({ websites, faults: { seed: 5, resetAfterCommitRate: 1 } });
    const manifest = 'version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n';
    const statePath = await tempStatePath();
    const run = await syncOnce({ simulator, manifest, statePath, retry: FAST_RETRY, force: true });
    const deletes = simulator.requests.filter((r) => r.method === 'DELETE').map((r) => r.status);
    expect(deletes).toEqual(['reset-after-commit', 404]);
    const outcome = run.applied?.outcomes.find((o) => o.domain === 'old.example.com');
    expect(outcome?.result).toBe('deleted');
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['keep.example.com']);
  });
});
