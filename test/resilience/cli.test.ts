import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { CLI, runCli, toolEnv } from '../helpers/cli.js';
import { websiteCalls, websiteRequests } from '../helpers/harness.js';
import { expectAccount, manifestOf, type TestSite, testSites } from './helpers.js';

// The built binary (`npx tsc -p tsconfig.build.json`, as `npm test` does first) against the in-process
// simulator: what a CI job sees when the service misbehaves, exit status and messages included.

let simulator: Simulator;
let env: Record<string, string>;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p tsconfig.build.json)`);
});

afterEach(async () => {
  await simulator?.close();
});

async function setUp(sites: TestSite[], options: Parameters<typeof startSimulator>[0] = {}): Promise<void> {
  simulator = await startSimulator(options);
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-resilience-'));
  await writeFile(join(dir, 'websites.yaml'), manifestOf(sites));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'silent' };
}

describe('websites-sync --once when the service misbehaves', () => {
  it('a key revoked mid-run: exit 1, the auth error, a summary of what was done; state kept', async () => {
    const sites = testSites(5);
    await setUp(sites);
    let stores = 0;
    simulator.onRequest = (req) => {
      if (req.method === 'POST' && ++stores === 3) simulator.setApiKey('rotated-key');
    };
    const run = await runCli(['--once', '--concurrency', '1'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused the API key \(401 Unauthenticated\.\)\. This came part-way through the run, after the key was accepted: the key was rotated or revoked/,
    );
    expect(run.stdout).toContain('Apply finished with failures: 2 created, 0 updated, 0 deleted, 3 failed.');
    expect(run.stdout).toMatch(/✗ create site2\.example\.com: .*Unauthenticated/);
    expect(run.stdout).toContain('✗ create site3.example.com: not attempted (the run stopped)');
    expect(websiteCalls(simulator)).toEqual([
      'GET /api/v1/websites',
      ...Array(3).fill('POST /api/v1/websites'),
    ]);

    // The state was written although the run stopped: exactly the two websites created.
    const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
    const domains = Object.values(state.websites as Record<string, { domain: string }>).map((w) => w.domain);
    expect(domains.sort()).toEqual(['site0.example.com', 'site1.example.com']);
    // Fingerprints are keyed by the API key: after a rotation the write-only fields of the two websites
    // already created are unknown, so they are sent once more.
    const rerun = await runCli(['--once'], { ...env, WEBSITES_SYNC_API_KEY: 'rotated-key' });
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain('Apply complete: 3 created, 2 updated, 0 deleted, 0 failed.');
    expectAccount(simulator, sites);
  });

  it('an HTML page instead of JSON: exit 1 naming the request, status and an excerpt; one request', async () => {
    await setUp(testSites(2), { faults: { seed: 5, script: ['html'] } });
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'websites-sync: GET /api/v1/websites: unexpected answer 200 (not JSON): "Login - Website Analytics Login"\n',
    );
    expect(websiteCalls(simulator)).toEqual(['GET /api/v1/websites']);
  });

  // Issue 10 §6: a listing that says it is page 1 every time, with new websites every time, was
  // followed forever (~30,500 requests in 20 s): paging counted the service's page numbers.
  it.each([
    ['every list answer', { stuckPaging: true }, 2],
    ['every list answer after a true first page', { stuckPaging: true, script: ['none' as const] }, 3],
  ])(
    'a paginator stuck on page 1 (%s): exit 1 with a clear message, a few requests',
    async (_name, faults, calls) => {
      const sites = testSites(250);
      await setUp(sites, { websites: sites.map(({ domain }) => ({ domain })) });
      const message =
        "websites-sync: GET /api/v1/websites: the listing's answers do not add up (page 2 was asked for, the answer says it is page 1); nothing was planned from it\n";
      for (const args of [['--once', '--dry-run'], ['--once']]) {
        simulator.clearRequests();
        simulator.setFaults(faults);
        const run = await runCli(args, env);
        expect(run.stderr).toBe(message);
        expect(run.code).toBe(1);
        expect(websiteCalls(simulator)).toEqual(Array(calls).fill('GET /api/v1/websites'));
      }
    },
  );

  it('a store that times out (--timeout): looked up, stored again, exit 0, nothing twice', async () => {
    const sites = testSites(1);
    await setUp(sites, { faults: { script: ['none', 'hang'] } });
    const run = await runCli(['--once', '--timeout', '1s'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Apply complete: 1 created, 0 updated, 0 deleted, 0 failed.');
    expect(websiteRequests(simulator).map((r) => [r.method, r.status])).toEqual([
      ['GET', 200],
      ['POST', 'hang'],
      ['GET', 200],
      ['POST', 201],
    ]);
    expectAccount(simulator, sites);
  });

  it('one website refused by the service: the others are applied, exit 1 with its message', async () => {
    const sites = testSites(3);
    await setUp(sites, { takenDomains: ['site1.example.com'] });
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Apply finished with failures: 2 created, 0 updated, 0 deleted, 1 failed.');
    expect(run.stdout).toContain(
      '✗ create site1.example.com: site1.example.com belongs to another account of the service; it cannot be added here',
    );
    expectAccount(
      simulator,
      sites.filter((s) => s.domain !== 'site1.example.com'),
    );
  });
});
