import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A typo repeated on every line of a large manifest listed 100,000 error lines (and held them all):
// now the first 100 are listed, then one line counts the rest, then the summary.

const N = 100_000;
let dir: string;
let file: string;
let simulator: Simulator;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-capped-'));
  file = join(dir, 'websites.yaml');
  await writeFile(file, `version: 1\nwebsites:\n${']\n'.repeat(N)}`);
  simulator = await startSimulator({ apiKey: 'capped-test-key' });
});

afterAll(async () => {
  await simulator.close();
  await rm(dir, { recursive: true, force: true });
});

function expectCapped(stderr: string): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(102);
  expect(lines[0]).toBe(`${file}:3:1: error: Unexpected flow-seq-end token in YAML stream: "]"`);
  expect(lines[99]).toBe(`${file}:102:1: error: Unexpected flow-seq-end token in YAML stream: "]"`);
  expect(lines[100]).toBe(
    `${file}: 99,900 more error(s) not listed (only the first 100 errors and the first 100 warnings are)`,
  );
  expect(lines[101]).toBe(`${file}: 100,000 error(s); nothing was changed.`);
}

describe('a manifest with a typo repeated 100,000 times', () => {
  it('validate lists the first 100 errors, counts the rest, and exits 1', async () => {
    const result = await runCli(['validate', '-f', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectCapped(result.stderr);
  });

  it('a run refuses it the same way, with --output json too, and sends nothing', async () => {
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_MANIFEST: file };
    for (const args of [['--once'], ['--once', '--dry-run', '--output', 'json']]) {
      const result = await runCli(args, env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expectCapped(result.stderr);
    }
    expect(simulator.requests).toHaveLength(0);
  });
});
