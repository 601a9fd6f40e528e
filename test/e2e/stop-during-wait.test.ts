import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequestStart, Simulator } from '../../src/simulator/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { lockState } from '../../src/state/index.js';
import { type StartedCli, startCli, toolEnv } from '../helpers/cli.js';

// Issue 19 §5: a stop is prompt whatever the run is waiting for. A 429 with `Retry-After: 240` (the
// client honours up to 5 minutes; a longer one is not retried at all) used to hold `--once` and the daemon for the whole pause: SIGTERM
// then did nothing until Docker or Kubernetes killed the process without its state or its report.

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const SITES = ['a.example.com', 'b.example.com', 'c.example.com', 'd.example.com'];

/** A simulator whose `nth` store is answered 429 with Retry-After: 240, and a manifest of SITES. */
async function setUp(
  nth: number,
): Promise<{ simulator: Simulator; dir: string; env: Record<string, string> }> {
  const simulator = await startSimulator({});
  cleanup.push(() => simulator.close());
  let stores = 0;
  simulator.onRequest = (req: RecordedRequestStart) => {
    if (req.method === 'POST' && ++stores === nth) {
      simulator.setFaults({ script: ['throttle'], throttleRetryAfterSeconds: 240 });
    }
  };
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-stop-wait-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const lines = SITES.map((domain) => `  - domain: ${domain}`);
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${lines.join('\n')}\n`);
  return { simulator, dir, env: toolEnv(simulator, dir) };
}

/** Resolves once the process has written a line matching `pattern` on stderr (no sleeps). */
function stderrLine(cli: StartedCli, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: cli.child.stderr! });
    lines.on('line', (line) => {
      if (pattern.test(line)) resolve(line);
    });
    lines.on('close', () => reject(new Error(`exited without a line matching ${pattern}`)));
  });
}

const stopTimed = async (cli: StartedCli) => {
  const sent = Date.now();
  cli.child.kill('SIGTERM');
  const run = await cli.done;
  return { ...run, ms: Date.now() - sent };
};

describe('--once stopped while it waits', () => {
  it('out a Retry-After of 4 minutes: ends within a second, saves the state, prints what was and was not done, exits 143', async () => {
    const { simulator, env } = await setUp(3);
    const cli = startCli(['--once', '--concurrency', '1'], { ...env, WEBSITES_SYNC_LOG_LEVEL: 'warn' });
    cleanup.push(async () => cli.child.kill('SIGKILL'));
    await stderrLine(cli, /HTTP 429; retry 1 in 24\d\.\ds/);
    const run = await stopTimed(cli);

    expect(run.code, run.stderr).toBe(143);
    expect(run.ms).toBeLessThan(5_000);
    // Two creates were done; the throttled one was never repeated, the last never attempted.
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['a.example.com', 'b.example.com']);
    expect(simulator.requests.filter((r) => r.method === 'POST')).toHaveLength(3);
    // The plan, then what was done and what was not.
    expect(run.stdout).toMatch(/^\+ d\.example\.com$/m);
    expect(run.stdout).toMatch(/✓ create a\.example\.com/);
    expect(run.stdout).toMatch(/✗ create c\.example\.com: not attempted/);
    expect(run.stdout).toMatch(/✗ create d\.example\.com: not attempted/);
    const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
    expect(Object.keys(state.websites)).toHaveLength(2);
  });

  it('for the lock another run holds on the state: ends at once, nothing read, exits 143', async () => {
    const { simulator, env } = await setUp(0);
    const held = await lockState(env.WEBSITES_SYNC_STATE_FILE as string);
    cleanup.push(() => held.release());
    const cli = startCli(['--once'], { ...env, WEBSITES_SYNC_LOG_LEVEL: 'warn' });
    cleanup.push(async () => cli.child.kill('SIGKILL'));
    await stderrLine(cli, /is locked by .*; waiting up to/);
    const run = await stopTimed(cli);

    expect(run.code, run.stderr).toBe(143);
    expect(run.ms).toBeLessThan(5_000);
    expect(run.stderr).toContain('interrupted before any change was made');
    expect(simulator.requests).toEqual([]);
  });
});
