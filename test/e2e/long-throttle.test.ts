import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A 429 whose Retry-After is longer than websites-sync waits (5 minutes) was retried after 5 minutes,
// five times (25 minutes for one request, to meet the same refusal), and every later request waited
// its turn the same way. It now ends the run at once, saying how long the service asked to wait.
let simulator: Simulator;
afterEach(async () => {
  await simulator.close();
});

describe('a 429 asking for longer than websites-sync waits', () => {
  it('mid-apply: not retried, nothing more sent, each website says why; the next run converges', async () => {
    simulator = await startSimulator({
      // The list, the first store: throttled for an hour.
      faults: { script: ['none', 'throttle'], throttleRetryAfterSeconds: 3_600 },
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-long-throttle-'));
    const domains = ['a.example.com', 'b.example.com', 'c.example.com'];
    await writeFile(
      join(dir, 'websites.yaml'),
      `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`,
    );
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'silent' };
    const run = await runCli(['--once', '--concurrency', '1'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /✗ create a\.example\.com: POST \/api\/v1\/websites: 429 Too Many Attempts\.: the service asked to wait 60 minutes \(Retry-After, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), longer than the 5 minutes websites-sync waits: not retried, and nothing more is sent until then; run again later/,
    );
    expect(run.stdout).toMatch(
      /✗ create b\.example\.com: POST \/api\/v1\/websites: not sent: the service asked to wait 60 minutes \(until \S+Z\) in an earlier 429$/m,
    );
    expect(simulator.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(simulator.listWebsites()).toEqual([]);

    const again = await runCli(['--once'], env);
    expect(again.code, again.stdout).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(domains);
  });
});

describe('a 429 asking for an hour, from a service that announces its rate limit', () => {
  it('is not taken for the length of its rate-limit window (no advice to set --rate-window)', async () => {
    simulator = await startSimulator({
      // The list, the first store, then the second store throttled for an hour; a 60-second window.
      faults: { script: ['none', 'none', 'throttle'], throttleRetryAfterSeconds: 3_600 },
      rateLimit: { limit: 600, windowMs: 60_000 },
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-long-throttle-'));
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n',
    );
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
    const run = await runCli(['--once', '--concurrency', '1'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the service asked to wait 60 minutes');
    // The pacer stops at its 5-minute bound, which is no window the service has.
    expect(run.stderr).not.toContain('rate-limit window looks like');
  });
});
