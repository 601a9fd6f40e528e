import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// An IPv6 address names one address whatever the case of its hex digits. The web UI keeps what was
// typed (`2001:DB8::1`); a manifest that writes it either way means the same account.
let simulator: Simulator;

afterEach(async () => {
  await simulator.close();
});

describe('IPv6 addresses in either case', () => {
  it('an export of an address typed in upper case plans no change; either case in a manifest is converged', async () => {
    simulator = await startSimulator({
      websites: [{ domain: 'v6.example.com', exclude_ips: '2001:DB8::1\n203.0.113.7' }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-ip-case-'));
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
    const manifest = join(dir, 'websites.yaml');
    const exported = await runCli(['export', '--out', manifest], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(manifest, 'utf8')).toMatch(/2001:db8::1/i);

    const plan = await runCli(['--once', '--dry-run', '--prune', '--detailed-exitcode'], env);
    expect(plan.stdout).toContain('No changes');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
