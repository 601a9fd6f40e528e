import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 19 §3: an ignore glob inside an internationalised label protects what it says, whether the
// service holds the name in Unicode or in punycode; a pattern whose spelling matches nothing is an error.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({
    websites: [
      { domain: 'kept.example.com', privacy: 1 },
      { domain: 'bücher-shop.example', privacy: 1 },
      { domain: 'xn--bcher-blog-9db.example', privacy: 1 },
      { domain: 'stale.example.com', privacy: 1 },
    ],
  });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-idn-ignore-'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

const manifest = (pattern: string) =>
  `version: 1\nprune: true\nignore:\n  - ${JSON.stringify(pattern)}\nwebsites:\n  - domain: kept.example.com\n    privacy: private\n`;

describe('an ignore glob inside an internationalised label', () => {
  it.each(['bücher-*.example', 'B*CHER-*.example'])('%s keeps both spellings from prune', async (pattern) => {
    await writeFile(join(dir, 'websites.yaml'), manifest(pattern));
    const run = await runCli(['--once'], env);
    expect(run.stdout).toContain('2 website(s) ignored by pattern');
    expect(run.code).toBe(0);
    expect(
      simulator
        .listWebsites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(['bücher-shop.example', 'kept.example.com', 'xn--bcher-blog-9db.example']);
  });

  it('a wildcard inside a punycode label is an error with its position, and nothing is requested', async () => {
    await writeFile(join(dir, 'websites.yaml'), manifest('xn--bcher-*-n2a.example'));
    const validate = await runCli(['validate'], env);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('websites.yaml:4:5: error: ignore[0]:');
    expect(validate.stderr).toContain('write that label in Unicode ("bücher-*")');
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(simulator.requests).toEqual([]);
    expect(simulator.listWebsites()).toHaveLength(4);
  });
});
