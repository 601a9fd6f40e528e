import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { CLI, runCli, toolEnv } from '../helpers/cli.js';

let simulator: Simulator;
let env: Record<string, string>;

async function start(
  websites: SeedWebsite[],
  count: number,
  options: { maxWebsites?: number; latencyMs?: number } = {},
) {
  simulator = await startSimulator({
    websites,
    ...(options.maxWebsites ? { maxWebsites: options.maxWebsites } : {}),
    ...(options.latencyMs ? { faults: { latencyMs: options.latencyMs } } : {}),
  });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-apply-'));
  const lines = Array.from(
    { length: count },
    (_, i) => `  - domain: site${i}.example.com\n    exclude_params: [ref]`,
  );
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${lines.join('\n')}\n`);
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

afterEach(async () => {
  await simulator.close();
});

const posts = () => simulator.requests.filter((r) => r.method === 'POST').length;

describe("the account's website limit (issue 11, fact 9)", () => {
  it('stops sending creates once one meets the limit: the rest are "not attempted", exit 1', async () => {
    await start([{ domain: 'site0.example.com' }], 5, { maxWebsites: 2 });
    // A service that does not tell its plan limit (/account): the 422 is then the only sign of it.
    simulator.setFaults({ accountFault: 404 });
    const run = await runCli(['--once', '--concurrency', '1'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/✗ create site2\.example\.com: .*maximum number of websites/);
    expect(run.stdout).toContain(
      "✗ create site3.example.com: not attempted: the account's website limit is reached",
    );
    expect(run.stdout).toContain(
      "✗ create site4.example.com: not attempted: the account's website limit is reached",
    );
    expect(posts()).toBe(2);
  });
});

describe('durable progress (issue 14 §3)', () => {
  it('a kill during a long create phase loses at most the last second of fingerprints', async () => {
    await start([], 60, { latencyMs: 40 });
    const child = spawn(process.execPath, [CLI, '--once', '--concurrency', '1'], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      stdio: 'ignore',
    });
    const killed = new Promise((done) => child.on('exit', done));
    simulator.onRequest = (req) => {
      if (req.method === 'POST' && posts() === 45) child.kill('SIGKILL');
    };
    await killed;
    simulator.onRequest = undefined;
    const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
    const saved = Object.keys(state.websites).length;
    expect(saved).toBeGreaterThan(0);

    simulator.clearRequests();
    const rerun = await runCli(['--once'], env);
    expect(rerun.code, rerun.stdout).toBe(0);
    // What the killed run created (a store in flight at the kill included) is what the rerun did not.
    const created = 60 - posts();
    // A second of creates at 40 ms each is 25; before, nothing was saved until the phase ended.
    expect(created - saved).toBeLessThanOrEqual(27);
    // Only the websites whose fingerprints were lost get their write-only fields again.
    expect(simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(created - saved);
  });
});
