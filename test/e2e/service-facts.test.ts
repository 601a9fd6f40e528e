import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecord } from '../../src/service/records.js';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// The real service's behaviours (issue 11, facts 3 to 5), from the built CLI against the simulator.
let simulator: Simulator;
let env: Record<string, string>;

async function start(websites: SeedWebsite[], manifest: string): Promise<void> {
  simulator = await startSimulator({ websites });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-facts-'));
  await writeFile(join(dir, 'websites.yaml'), manifest);
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

afterEach(async () => {
  await simulator.close();
});

/** After an apply, a converged re-plan costs only the list request (and the account's plan). */
async function expectConverged(): Promise<void> {
  simulator.clearRequests();
  const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
  expect(again.code, again.stdout).toBe(0);
  // Converged: the listing and the account's plan, nothing else.
  expect(simulator.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
    'GET /api/v1/account',
    'GET /api/v1/websites',
  ]);
}

describe('null in a listing is "not set"', () => {
  it('sets privacy and email a store left null, then converges', async () => {
    await start(
      [{ domain: 'a.example.com', privacy: null, email: null }],
      'version: 1\nwebsites:\n  - domain: a.example.com\n',
    );
    const plan = await runCli(['--once', '--dry-run'], env);
    expect(plan.stdout).toMatch(/privacy: \(none\) → private/);
    expect(plan.stdout).toMatch(/email: \(none\) → false/);
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(simulator.listWebsites()[0]).toMatchObject({ privacy: 1, email: 0 });
    await expectConverged();
  });

  it('a create sends every managed field, so nothing is left null', async () => {
    await start([], 'version: 1\nwebsites:\n  - domain: new.example.com\n');
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(simulator.listWebsites()[0]).toMatchObject({ privacy: 1, email: 0, exclude_bots: 1 });
    await expectConverged();
  });
});

describe('a stale password', () => {
  it('is cleared when the declared privacy is not password', async () => {
    await start(
      [{ domain: 'a.example.com', privacy: 2, password: 'old-password' }],
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: private\n',
    );
    // Moving privacy away from 2 in the web UI keeps the old password stored.
    simulator.updateWebsite(simulator.listWebsites()[0]!.id, { privacy: 1 });
    expect(simulator.listWebsites()[0]).toMatchObject({ privacy: 1, password: 'old-password' });
    const plan = await runCli(['--once', '--dry-run'], env);
    expect(plan.stdout).toContain('password: (set) → (none)');
    expect(plan.stdout).not.toContain('old-password');
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(simulator.listWebsites()[0]).toMatchObject({ privacy: 1, password: null });
    await expectConverged();
  });
});

describe('every representation of a record', () => {
  it.each([
    [
      { privacy: '2', email: '1', exclude_bots: '0', password: true },
      { privacy: 2, email: true, exclude_bots: false },
    ],
    [
      { privacy: 2, email: 1, exclude_bots: 0, password: true },
      { privacy: 2, email: true, exclude_bots: false },
    ],
    [
      { privacy: null, email: null, exclude_bots: 1, password: false },
      { privacy: null, email: null, exclude_bots: true },
    ],
  ])('reads %j as %j', (fields, expected) => {
    expect(parseRecord({ id: 1, domain: 'a.example.com', ...fields })).toMatchObject(expected);
  });
});

describe('an update of a website deleted meanwhile (issue 11, fact 8)', () => {
  it.each([404, 500] as const)(
    'answered %i: looked up once, reported "no longer exists", not retried',
    async (status) => {
      simulator = await startSimulator({
        websites: [{ domain: 'a.example.com' }],
        missingUpdateStatus: status,
      });
      const dir = await mkdtemp(join(tmpdir(), 'websites-sync-facts-'));
      await writeFile(
        join(dir, 'websites.yaml'),
        'version: 1\nwebsites:\n  - domain: a.example.com\n    email: true\n',
      );
      env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
      simulator.onRequest = (req) => {
        if (req.method === 'PATCH') simulator.deleteWebsite(simulator.listWebsites()[0]!.id);
      };
      const run = await runCli(['--once'], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/✗ update a\.example\.com: .*(no longer exists|404)/);
      // The account's plan (one read per run) is not part of what this counts.
      const calls = simulator.requests
        .map((r) => `${r.method} ${r.path}`)
        .filter((c) => !c.endsWith('/account'));
      expect(calls.filter((c) => c.startsWith('PATCH'))).toHaveLength(1);
      expect(calls.length).toBeLessThanOrEqual(status === 500 ? 3 : 2);
    },
  );
});
