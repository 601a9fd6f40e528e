import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A plan is the same on every machine: its order and a saved plan's fingerprint of the manifest do not
// depend on the user's locale. Danish collation sorts `aa` after `z` (as `å`), so a plan saved under
// one locale and applied under the other tells whether anything orders names by the locale.

const KEY = 'locale-e2e-api-key-5b1e';
const MANIFEST = `version: 1
websites:
  - domain: zebra.example.com
  - domain: aardvark.example.com
  - domain: ab.example.com
`;
const ENGLISH = { LC_ALL: 'en_US.UTF-8', LANG: 'en_US.UTF-8' };
const DANISH = { LC_ALL: 'da_DK.UTF-8', LANG: 'da_DK.UTF-8' };

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: KEY, websites: [] });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-locale-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
  await writeFile(join(dir, 'websites.yaml'), MANIFEST);
});

afterEach(async () => {
  await simulator.close();
});

describe('the locale of the machine', () => {
  it('orders a plan the same under any locale', async () => {
    const english = await runCli(['--once', '--dry-run'], { ...env, ...ENGLISH });
    const danish = await runCli(['--once', '--dry-run'], { ...env, ...DANISH });
    expect(english.code).toBe(0);
    const order = (text: string) => [...text.matchAll(/\+ (\S+\.example\.com)/g)].map((m) => m[1]);
    expect(order(english.stdout)).toEqual(['aardvark.example.com', 'ab.example.com', 'zebra.example.com']);
    expect(order(danish.stdout)).toEqual(order(english.stdout));
  });

  it('applies a plan saved under another locale: the manifest is recognised as the one reviewed', async () => {
    const planFile = join(dir, 'plan.json');
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], { ...env, ...ENGLISH });
    expect(saved.code).toBe(0);
    const applied = await runCli(['--once', '--plan', planFile], { ...env, ...DANISH });
    expect(applied.stderr).not.toContain('changed since');
    expect(applied.code).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toHaveLength(3);
  });
});
