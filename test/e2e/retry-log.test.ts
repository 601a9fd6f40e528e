import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 12 §5: a retry is one warn line with the reason and the wait, not seconds of silence.
let simulator: Simulator;
afterEach(async () => {
  await simulator.close();
});

describe('retries in the log', () => {
  it('says which request failed, why, and how long until it is tried again', async () => {
    simulator = await startSimulator({
      websites: [{ domain: 'a.example.com' }],
      faults: { script: ['error', 'throttle'], errorStatuses: [503], throttleRetryAfterSeconds: 1 },
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-retry-'));
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const run = await runCli(['--once', '--dry-run'], {
      ...toolEnv(simulator, dir),
      WEBSITES_SYNC_LOG_LEVEL: 'warn',
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const retries = lines.filter((line) => line.stage === 'service' && line.retry !== undefined);
    expect(retries.map((line) => line.reason)).toEqual(['HTTP 503', 'HTTP 429']);
    expect(retries[0]?.msg).toMatch(/^GET \/api\/v1\/websites: HTTP 503; retry 1 in \d+\.\ds$/);
    // The throttle's Retry-After is honoured and said.
    expect(retries[1]?.delayMs).toBeGreaterThanOrEqual(1000);
    expect(run.stderr).not.toContain(simulator.apiKey);
  });
});
