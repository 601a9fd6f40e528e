import { afterEach, describe, expect, it } from 'vitest';
import type { FaultKind, SeedWebsite, Simulator } from '../../src/simulator/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { syncOnce, tempStatePath } from '../helpers/harness.js';
import { expectAccount, FAST_RETRY, manifestOf, type TestSite, testSites } from './helpers.js';

// A write the service answered with a 5xx may have been done. The report of each website that failed
// says which request failed and with what status (the service's "Server Error" alone says neither),
// and when the lookup that would tell whether it was done fails too, it still names the write and says
// it may have been done; the next run reads the account and converges, nothing twice.

let simulator: Simulator;
afterEach(async () => {
  await simulator?.close();
});

/** Every attempt of a request that the client retries (FAST_RETRY: 10 retries) failing. */
const ALL_ATTEMPTS: FaultKind[] = Array.from({ length: FAST_RETRY.maxRetries + 1 }, () => 'error');

async function start(websites: SeedWebsite[], script: Array<FaultKind | 'none'>): Promise<void> {
  // JSON error bodies: the service's own `{"message":"Server Error"}`, not a proxy's page.
  simulator = await startSimulator({ websites, faults: { script, errorStatuses: [500], seed: 2 } });
}

async function sync(sites: TestSite[], statePath: string, prune = false) {
  const run = await syncOnce({
    simulator,
    manifest: manifestOf(sites, { prune }),
    statePath,
    retry: FAST_RETRY,
    concurrency: 1,
  });
  return run.applied?.outcomes ?? [];
}

const seeded = (site: TestSite): SeedWebsite => ({ domain: site.domain, privacy: 1, email: false });

describe('a write answered with a 5xx', () => {
  it('an update that keeps failing: the report names the request and the status', async () => {
    const [site] = testSites(1) as [TestSite];
    // The list; the update (a 5xx is not retried blindly); the show finds it; the update again, retried.
    await start([seeded(site)], ['none', 'error', 'none', ...ALL_ATTEMPTS]);
    const statePath = await tempStatePath();
    const outcomes = await sync([site], statePath);
    expect(outcomes).toEqual([
      expect.objectContaining({ result: 'failed', error: 'PATCH /api/v1/websites/1: 500 Server Error' }),
    ]);
  });

  it('a create whose lookup fails too: names the store and says it may have been stored', async () => {
    const [site] = testSites(1) as [TestSite];
    // The list; the store is done, then answered 500 (the simulator's answer to a throwing hook, which
    // draws no fault); the lookup keeps failing.
    await start([], ['none', ...ALL_ATTEMPTS]);
    let stores = 0;
    simulator.onRequest = (req) => {
      if (req.method === 'POST' && ++stores === 1) {
        simulator.createWebsite({ domain: site.domain });
        throw new Error('gateway timeout after the store was committed');
      }
    };
    const statePath = await tempStatePath();
    const [outcome] = await sync([site], statePath);
    expect(outcome?.result).toBe('failed');
    expect(outcome?.error).toMatch(
      /^POST \/api\/v1\/websites: 500 Server Error; site0\.example\.com may have been stored, and looking it up failed too \(GET \/api\/v1\/websites: [^;]*500[^;]*\); the next run reads the account again and sees which$/,
    );
    simulator.onRequest = undefined;
    await sync([site], statePath);
    expectAccount(simulator, [site]);
  });

  it.each([
    ['an update', 'PATCH', 'changed', false],
    ['a delete', 'DELETE', 'deleted', true],
  ] as const)(
    '%s whose lookup fails too: names the %s request, not only the lookup',
    async (_kind, method, done, prune) => {
      const [kept, other] = testSites(2) as [TestSite, TestSite];
      const target = prune ? other : kept;
      // The list; the write (500); the show that would tell whether it still exists keeps failing.
      await start([seeded(kept), seeded(other)], ['none', 'error', ...ALL_ATTEMPTS]);
      const statePath = await tempStatePath();
      const id = simulator.listWebsites().find((w) => w.domain === target.domain)?.id;
      const outcomes = await sync(prune ? [kept] : [kept, other], statePath, prune);
      const failed = outcomes.find((o) => o.result === 'failed');
      expect(failed?.domain).toBe(target.domain);
      // The service's JSON error or a proxy's HTML page, at random: either names its status.
      const answer = '[^;]*500[^;]*';
      expect(failed?.error).toMatch(
        new RegExp(
          `^${method} /api/v1/websites/${id}: ${answer}; website ${id} may have been ${done}, and looking it up failed too \\(GET /api/v1/websites/${id}: ${answer}\\); the next run reads the account again and sees which$`,
        ),
      );
      await sync(prune ? [kept] : [kept, other], statePath, prune);
      expectAccount(simulator, prune ? [kept] : [kept, other]);
    },
  );
});
