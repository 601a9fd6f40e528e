import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 15 §4: one concurrency limiter per run. Whatever the run does (pages, confirming lookups,
// creates with their lookups, updates), the service never has more than --concurrency requests at once.
let simulator: Simulator;
afterEach(async () => {
  await simulator.close();
});

async function run(concurrency: number): Promise<number> {
  // 350 websites (4 pages); the manifest keeps 300 of them (20 with another privacy) and adds 30.
  simulator = await startSimulator({
    websites: Array.from({ length: 350 }, (_, i) => ({ domain: `site${i}.example.com` })),
    faults: { latencyMs: 20 },
  });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-concurrency-'));
  const kept = Array.from({ length: 300 }, (_, i) =>
    i < 20 ? `  - domain: site${i}.example.com\n    privacy: public` : `  - domain: site${i}.example.com`,
  );
  const added = Array.from({ length: 30 }, (_, i) => `  - domain: new${i}.example.com`);
  await writeFile(
    join(dir, 'websites.yaml'),
    `version: 1\nprune: true\nwebsites:\n${[...kept, ...added].join('\n')}\n`,
  );
  const result = await runCli(['--once', '--adopt', '--force', '--concurrency', String(concurrency)], {
    ...toolEnv(simulator, dir),
    WEBSITES_SYNC_LOG_LEVEL: 'warn',
  });
  expect(result.code, result.stderr).toBe(0);
  expect(simulator.requests.filter((r) => r.method === 'POST')).toHaveLength(30);
  expect(simulator.requests.filter((r) => r.method === 'DELETE')).toHaveLength(50);
  return simulator.maxInFlight;
}

describe('--concurrency', () => {
  it('bounds the requests in flight over a whole run: listing, confirming, deletes, updates, creates', async () => {
    expect(await run(2)).toBeLessThanOrEqual(2);
  });

  it('is the one bound: a larger one is used', async () => {
    const most = await run(6);
    expect(most).toBeLessThanOrEqual(6);
    expect(most).toBeGreaterThan(2);
  });
});
