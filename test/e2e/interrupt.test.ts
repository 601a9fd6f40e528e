import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { CLI, startCli as startCliWith, toolEnv } from '../helpers/cli.js';

// Issue 12 §5: `--once` and `simulator` stop gracefully on SIGTERM / SIGINT, also as PID 1 in a
// container (where a signal without a handler is ignored): no new operations, the ones in flight
// finish, the state is saved, the summary printed, exit 130 / 143.
let simulator: Simulator;
let env: Record<string, string>;

afterEach(async () => {
  simulator.onRequest = undefined;
  await simulator.close();
});

async function start(count: number, latencyMs: number): Promise<void> {
  simulator = await startSimulator({ faults: { latencyMs } });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-interrupt-'));
  const lines = Array.from(
    { length: count },
    (_, i) => `  - domain: site${i}.example.com\n    exclude_params: [ref]`,
  );
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${lines.join('\n')}\n`);
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

/** The CLI against this test's simulator (optionally behind a wrapper such as `unshare`). */
const startCli = (args: string[], wrapper: string[] = []) => startCliWith(args, env, wrapper);

const requests = (method: string) => simulator.requests.filter((r) => r.method === method);

describe('--once stopped by a signal', () => {
  it('SIGTERM during the apply: in-flight creates finish, the rest are not attempted, state saved, exit 143', async () => {
    await start(12, 100);
    const cli = startCli(['--once', '--concurrency', '2']);
    simulator.onRequest = (req) => {
      if (req.method === 'POST' && requests('POST').length === 3) cli.child.kill('SIGTERM');
    };
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(143);
    expect(run.stderr).toContain('SIGTERM: no new operations; those in flight finish');
    const created = simulator.listWebsites().length;
    expect(created).toBeGreaterThanOrEqual(3);
    expect(created).toBeLessThan(12);
    // Every request the service received was answered, and the summary names what was not attempted.
    expect(simulator.requests.filter((r) => typeof r.status !== 'number')).toEqual([]);
    expect(run.stdout).toMatch(/✗ create site\d+\.example\.com/);
    const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
    expect(Object.keys(state.websites)).toHaveLength(created);
  });

  it('SIGTERM while operations wait for the rate limit: they are not sent, and the run ends without waiting for the window', async () => {
    await start(12, 0);
    // 5 requests per 10 minutes: the listing, the account's plan and three creates, then the rest wait
    // for the window.
    simulator.setRateLimit({ limit: 5, windowMs: 600_000 });
    const cli = startCli(['--once', '--concurrency', '2', '--rate-window', '10m']);
    simulator.onRequest = (req) => {
      if (req.method === 'POST' && requests('POST').length === 3) cli.child.kill('SIGTERM');
    };
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(143);
    expect(requests('POST')).toHaveLength(3);
    expect(simulator.requests.filter((r) => r.status === 429)).toEqual([]);
    expect(run.stdout).toMatch(/not attempted: the run was stopped/);
    const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
    expect(Object.keys(state.websites)).toHaveLength(simulator.listWebsites().length);
  });

  it('SIGINT while the account is being read: stops at once, nothing changed, exit 130', async () => {
    await start(3, 5_000);
    const cli = startCli(['--once']);
    // One signal (the listing and the account's plan arrive together; a second would stop at once).
    let sent = false;
    simulator.onRequest = (req) => {
      if (req.method === 'GET' && !sent) {
        sent = true;
        cli.child.kill('SIGINT');
      }
    };
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('interrupted before any change was made');
    expect(requests('POST')).toEqual([]);
  });

  // Only where PID namespaces can be made (root, or user namespaces allowed): elsewhere the two tests
  // above still prove the handlers, which are what PID 1 needs.
  const unshare = ['unshare', '--pid', '--fork', '--kill-child'];
  const canUnshare = spawnSync(unshare[0] as string, [...unshare.slice(1), 'true']).status === 0;
  it.skipIf(!canUnshare)(
    'SIGTERM to the CLI running as PID 1 of its own PID namespace: exit 143',
    async () => {
      await start(12, 100);
      const cli = startCli(['--once', '--concurrency', '2'], unshare);
      simulator.onRequest = (req) => {
        if (req.method === 'POST' && requests('POST').length === 3) {
          // The CLI is the child of `unshare`, and PID 1 inside the namespace.
          const pid = Number(readChildren(cli.child.pid ?? 0)[0]);
          process.kill(pid, 'SIGTERM');
        }
      };
      const run = await cli.done;
      expect(run.code, run.stderr).toBe(143);
      expect(simulator.listWebsites().length).toBeLessThan(12);
    },
  );
});

function readChildren(pid: number): string[] {
  const text = spawnSync('cat', [`/proc/${pid}/task/${pid}/children`], { encoding: 'utf8' }).stdout;
  return text.trim().split(/\s+/);
}

describe('websites-sync simulator stopped by a signal', () => {
  it('closes and exits 143 on SIGTERM', async () => {
    simulator = await startSimulator({});
    const child = spawn(process.execPath, [CLI, 'simulator', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8').once('data', () => child.kill('SIGTERM'));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(143);
  });
});
