import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  API_KEY,
  manifestOf,
  PASSWORD_ENV,
  seedOf,
  websites,
  writeConvergedState,
} from '../../bench/lib/fixtures.mjs';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';

// `npm run bench` drives parts of the tool in its own processes (bench/daemon-heap.mjs builds a daemon
// as the CLI does, bench/phases.mjs runs the stages of a plan one by one), through the library's
// modules rather than the command line. Those calls are not type-checked: a change to the daemon's
// options once left the daemon's row unmeasurable, unnoticed until a full benchmark run. Each harness
// runs here on a tiny account, so such a change fails the tests instead.

const run = promisify(execFile);
const script = (name: string) => new URL(`../../bench/${name}`, import.meta.url).pathname;
let simulator: Simulator;
let dir: string;
const SITES = websites(12);

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: API_KEY, websites: seedOf(SITES) });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-harness-'));
  await writeFile(join(dir, 'websites.yaml'), manifestOf(SITES));
  await writeConvergedState(join(dir, 'state.json'), simulator.url, SITES);
});

afterEach(async () => {
  await simulator.close();
});

describe('the benchmark harnesses that call the library', () => {
  it('daemon-heap.mjs runs a daemon run after run and reports its live heap', async () => {
    const config = {
      url: simulator.url,
      manifest: join(dir, 'websites.yaml'),
      state: join(dir, 'state.json'),
    };
    const { stdout } = await run(process.execPath, [
      '--expose-gc',
      script('daemon-heap.mjs'),
      JSON.stringify({ ...config, runs: 3, checkpoint: 1 }),
    ]);
    const heap = JSON.parse(stdout) as { early: number; late: number };
    expect(heap.early).toBeGreaterThan(0);
    expect(heap.late).toBeGreaterThan(0);
  });

  it('phases.mjs plans a converged account stage by stage: no change', async () => {
    const config = {
      url: simulator.url,
      manifest: join(dir, 'websites.yaml'),
      state: join(dir, 'state.json'),
    };
    const { stdout } = await run(process.execPath, [script('phases.mjs'), JSON.stringify(config)], {
      env: { ...process.env, ...PASSWORD_ENV },
    });
    const result = JSON.parse(stdout) as { phases: Record<string, { cpuMs: number }>; changes: number };
    expect(Object.keys(result.phases)).toEqual(['manifest', 'state', 'listing', 'plan']);
    expect(result.changes).toBe(0);
  });
});
