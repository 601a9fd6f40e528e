import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, ServiceError } from '../../src/service/errors.js';
import {
  type FaultKind,
  type SeedWebsite,
  type Simulator,
  startSimulator,
} from '../../src/simulator/index.js';
import {
  type SyncOptions,
  syncOnce,
  tempStatePath,
  websiteCalls,
  websiteRequests,
} from '../helpers/harness.js';
import { countResults, expectAccount, FAST_RETRY, manifestOf, testSites } from './helpers.js';

// Failures that retrying cannot fix, or that must not be retried blindly: each one ends in the right
// error and outcome after a bounded number of requests, and the state keeps what was applied.

let simulator: Simulator;
afterEach(async () => {
  await simulator?.close();
});

async function start(script: Array<FaultKind | 'none'>, seed = 1): Promise<void> {
  simulator = await startSimulator({ faults: { seed, script } });
}

async function sync(sites = testSites(5), options: Partial<SyncOptions> = {}) {
  return syncOnce({
    simulator,
    manifest: manifestOf(sites),
    statePath: options.statePath ?? (await tempStatePath()),
    retry: FAST_RETRY,
    concurrency: 1,
    ...options,
  });
}

describe('answers that are not JSON', () => {
  it('an HTML page instead of the list stops the run, naming the request, status and an excerpt', async () => {
    await start(['html'], 5); // seed 5: the first HTML page is a 200 (a login or captive-portal page)
    const error = await sync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toMatch(
      /^GET \/api\/v1\/websites: unexpected answer 200 \(not JSON\): "Login - Website Analytics Login"$/,
    );
    expect(websiteCalls(simulator)).toEqual(['GET /api/v1/websites']);
    expect(simulator.listWebsites()).toEqual([]);
  });

  it('an HTML error page answering a store: looked up, stored once more, created once', async () => {
    await start(['none', 'html'], 4); // seed 4: the HTML page is a 500
    const sites = testSites(1);
    const run = await sync(sites);
    expect(countResults(run.applied?.outcomes ?? [])).toEqual({ created: 1 });
    expect(websiteRequests(simulator).map((r) => [r.method, r.query.search ?? '', r.status])).toEqual([
      ['GET', '', 200],
      ['POST', '', 500],
      ['GET', 'site0.example.com', 200],
      ['POST', '', 201],
    ]);
    expectAccount(simulator, sites);
  });
});

describe('the key refused mid-run', () => {
  it('a redirect to the login page stops the run: nothing more is sent, the state holds what was applied', async () => {
    await start(['none', 'none', 'none', 'login-redirect']);
    const sites = testSites(5);
    const statePath = await tempStatePath();
    const run = await sync(sites, { statePath });
    expect(run.applied?.authError).toBeInstanceOf(AuthError);
    expect(run.applied?.authError?.message).toMatch(/redirected POST \/api\/v1\/websites to its login page/);
    expect(countResults(run.applied?.outcomes ?? [])).toEqual({ created: 2, failed: 1, skipped: 2 });
    expect(websiteCalls(simulator)).toEqual([
      'GET /api/v1/websites',
      ...Array(3).fill('POST /api/v1/websites'),
    ]);

    // The state file knows what the two stores sent: the next run only creates the other three.
    const next = await sync(sites, { statePath });
    expect(next.plan.changes.map((c) => [c.kind, c.domain])).toEqual(
      sites.slice(2).map((s) => ['create', s.domain]),
    );
    expectAccount(simulator, sites);
  });

  it('a 401 once the key is revoked stops the run at once, with no retry storm', async () => {
    simulator = await startSimulator();
    const sites = testSites(20);
    let stores = 0;
    simulator.onRequest = (req) => {
      if (req.method === 'POST' && ++stores === 5) simulator.setApiKey('rotated-key');
    };
    const statePath = await tempStatePath();
    const run = await sync(sites, { statePath, concurrency: 4 });
    expect(run.applied?.authError?.message).toMatch(/refused the API key \(401 Unauthenticated\.\)/);
    const results = countResults(run.applied?.outcomes ?? []);
    // The 5th store and those already in flight got 401 (never retried); no other store was sent.
    expect(results.created).toBe(4);
    expect(results.failed).toBeGreaterThanOrEqual(1);
    expect(results.failed).toBeLessThanOrEqual(4);
    expect(stores).toBe(4 + (results.failed ?? 0));
    expect(simulator.requests.filter((r) => r.status === 401)).toHaveLength(results.failed ?? 0);

    const created = new Set(simulator.listWebsites().map((w) => w.domain));
    const next = await sync(sites, { statePath, apiKey: 'rotated-key' });
    expect(next.plan.changes.every((c) => c.kind === 'create' && !created.has(c.domain))).toBe(true);
    expect(next.plan.changes).toHaveLength(16);
    expectAccount(simulator, sites);
  });
});

describe('timeouts', () => {
  // A second: an answer the test's own process is slow to give under load is not taken for a hang.
  const TIMEOUT = { timeoutMs: 1_000 };

  it('a store that never answers and was not stored: the lookup finds nothing, it is stored once more', async () => {
    await start(['none', 'hang']);
    const sites = testSites(1);
    const run = await sync(sites, TIMEOUT);
    expect(countResults(run.applied?.outcomes ?? [])).toEqual({ created: 1 });
    expect(websiteRequests(simulator).map((r) => [r.method, r.status])).toEqual([
      ['GET', 200],
      ['POST', 'hang'],
      ['GET', 200],
      ['POST', 201],
    ]);
    expectAccount(simulator, sites);
  });

  it('a store committed whose answer never comes: the lookup finds it, nothing is stored twice', async () => {
    simulator = await startSimulator();
    const sites = testSites(1);
    simulator.onRequest = (req) => {
      if (req.method !== 'POST' || simulator.listWebsites().length > 0) return;
      // The service stores the form as sent, then its answer is lost in a hung connection.
      simulator.createWebsite(req.body as unknown as SeedWebsite);
      simulator.setFaults({ script: ['hang'] });
    };
    const run = await sync(sites, TIMEOUT);
    expect(countResults(run.applied?.outcomes ?? [])).toEqual({ created: 1 });
    expect(websiteCalls(simulator)).toEqual([
      'GET /api/v1/websites',
      'POST /api/v1/websites',
      'GET /api/v1/websites',
    ]);
    expectAccount(simulator, sites);
  });

  it('a service that never answers: a bounded number of attempts, then an error naming the timeout', async () => {
    simulator = await startSimulator({ faults: { hangRate: 1 } });
    const error = await sync(testSites(1), { ...TIMEOUT, retry: { ...FAST_RETRY, maxRetries: 2 } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toMatch(
      /^GET \/api\/v1\/websites: no answer from http:\/\/127\.0\.0\.1:\d+ \(no response within 1s; see --timeout\)$/,
    );
    expect(websiteCalls(simulator)).toEqual(Array(3).fill('GET /api/v1/websites'));
  });
});
