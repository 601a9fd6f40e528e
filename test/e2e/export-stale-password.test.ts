import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// The service keeps a password when privacy moves away from 2 (PRODUCT §2), and a plan clears such a
// stale password. An exported manifest must still mean the account as it is: adopting it changes nothing.
let simulator: Simulator;

afterEach(async () => {
  await simulator.close();
});

describe('export of a website that keeps a password from an earlier privacy "password"', () => {
  it('writes a manifest whose plan, prune on, changes nothing, and says how to clear the password', async () => {
    simulator = await startSimulator({
      websites: [
        { domain: 'was-locked.example.com', privacy: 1, password: 'old-stats-pw' },
        { domain: 'plain.example.com', privacy: 0 },
      ],
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-stale-pw-'));
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
    const manifest = join(dir, 'websites.yaml');
    const exported = await runCli(['export', '--out', manifest], env);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(manifest, 'utf8');
    expect(text).not.toContain('old-stats-pw');
    expect(text).toContain('ignore_fields:\n      - password');
    expect(text).toMatch(/still holds a password/);

    const plan = await runCli(['--once', '--dry-run', '--prune', '--detailed-exitcode'], env);
    expect(plan.stdout).toContain('No changes');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
