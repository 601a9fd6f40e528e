import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 14 §4: onboarding an existing account with --adopt costs only the listing: the write-only
// fields the service never returns are recorded as declared instead of resent to every website.
const PASSWORD = 'adopt-secret-pw';
let simulator: Simulator;
let env: Record<string, string>;

afterEach(async () => {
  await simulator.close();
});

/** An account of `count` websites that already matches the manifest (the password too). */
async function start(count: number, drift: (i: number) => Partial<SeedWebsite> = () => ({})): Promise<void> {
  const seed = Array.from(
    { length: count },
    (_, i): SeedWebsite => ({
      domain: `site${i}.example.com`,
      exclude_params: ['ref'],
      ...(i === 0 ? { privacy: 2, password: PASSWORD } : {}),
      ...drift(i),
    }),
  );
  simulator = await startSimulator({ websites: seed });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-adopt-'));
  const lines = Array.from({ length: count }, (_, i) =>
    i === 0
      ? `  - domain: site${i}.example.com\n    exclude_params: [ref]\n    privacy: password\n    password: \${SITE_PASSWORD}`
      : `  - domain: site${i}.example.com\n    exclude_params: [ref]`,
  );
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${lines.join('\n')}\n`);
  env = { ...toolEnv(simulator, dir), SITE_PASSWORD: PASSWORD, WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

const writes = () => simulator.requests.filter((r) => r.method !== 'GET');

describe('--once --adopt', () => {
  it('onboards an account of N websites with ⌈N/100⌉ requests (and the plan limit), then is converged', async () => {
    await start(250);
    const run = await runCli(['--once', '--adopt'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(simulator.requests.map((r) => r.path).sort()).toEqual([
      '/api/v1/account',
      ...Array(3).fill('/api/v1/websites'),
    ]);
    expect(run.stdout).toContain(
      'Adopts 250 website(s) when applied: exclude_params and passwords are assumed to match the manifest (recorded, not sent)',
    );
    const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
    expect(Object.keys(state.websites)).toHaveLength(250);
    expect(JSON.stringify(state)).not.toContain(PASSWORD);

    simulator.clearRequests();
    const next = await runCli(['--once'], env);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('No changes. 250 website(s) match the manifest.');
    expect(writes()).toEqual([]);
    for (const out of [run.stdout, run.stderr, next.stdout, next.stderr]) expect(out).not.toContain(PASSWORD);
  });

  it('still updates readable fields that differ, without sending the adopted write-only ones', async () => {
    await start(3, (i) => (i === 2 ? { privacy: 0 } : {}));
    const run = await runCli(['--once', '--adopt'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(writes().map((r) => [r.method, r.body])).toEqual([['PATCH', { privacy: '1' }]]);
  });

  it('--dry-run shows the adoption and records nothing', async () => {
    await start(2);
    const run = await runCli(['--once', '--adopt', '--dry-run', '-o', 'json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).adopted).toEqual([
      { id: 1, domain: 'site0.example.com', fields: ['exclude_params', 'password'] },
      { id: 2, domain: 'site1.example.com', fields: ['exclude_params'] },
    ]);
    await expect(readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('is never the default, and only for a one-off --once run', async () => {
    await start(1);
    const plain = await runCli(['--once', '--dry-run'], env);
    expect(plain.stdout).toContain(
      'exclude_params: [ref]  (will be sent, replacing a value the service does not show; --adopt records it instead)',
    );
    for (const args of [
      ['--adopt'],
      ['--once', '--adopt', '--plan', 'x.json'],
      ['--once', '--adopt', '--dry-run', '--out', 'x.json'],
    ]) {
      const run = await runCli(args, env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--adopt: only with --once, and not with --plan or --out');
    }
    // Only the run above: the listing and the account's plan.
    expect(simulator.requests.map((r) => r.path).sort()).toEqual(['/api/v1/account', '/api/v1/websites']);
  });
});
