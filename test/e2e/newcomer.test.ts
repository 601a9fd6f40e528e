import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 23 §4: what a newcomer met in one hour of use. Each answer says what to do instead.

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: 'newcomer-key' });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-newcomer-'));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
  await rm(dir, { recursive: true, force: true });
});

const writes = () => simulator.requests.filter((r) => r.method !== 'GET');

describe('the command line points a newcomer at the right spelling', () => {
  it('validate extra.yaml: the manifest is given with -f', async () => {
    const r = await runCli(['validate', 'extra.yaml'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '"extra.yaml" is not a command; the manifest is given with -f: websites-sync validate -f extra.yaml',
    );
  });

  it('help: points at --help', async () => {
    const r = await runCli(['help'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('for help: websites-sync --help');
  });

  it('an option without its value: our message, naming the option and what it takes', async () => {
    const r = await runCli(['--once', '--plan'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('argument missing');
    expect(r.stderr).toContain('--plan needs a value: FILE, apply exactly this saved plan');
    const output = await runCli(['--once', '-o'], env);
    expect(output.stderr).toContain(
      '--output needs a value: FORMAT, the format of the plan on stdout: text, json or markdown',
    );
  });

  it('export -o json: says export writes yaml, without suggesting a file named json', async () => {
    const r = await runCli(['export', '-o', 'json'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('export writes yaml only');
    expect(r.stderr).not.toContain('--out json');
  });

  it("export --help says what --force does for export; a run's help, what it does for a run", async () => {
    const exportHelp = (await runCli(['export', '--help'], env)).stdout;
    const forceLine = exportHelp.split('\n').find((l) => l.includes('--force ')) ?? '';
    expect(forceLine).toContain('replace an existing --out FILE');
    expect(exportHelp).not.toContain('mass-delete');
    const runHelp = (await runCli(['--help'], env)).stdout;
    expect(runHelp.split('\n').find((l) => l.includes('--force ')) ?? '').toContain(
      'override the mass-delete guard',
    );
  });

  it('a base URL ending in /api/v1: refused with the URL to use, before any request', async () => {
    const r = await runCli(['--once', '--dry-run'], {
      ...env,
      WEBSITES_SYNC_BASE_URL: `${simulator.url}/api/v1/`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`ends in /api/v1, which websites-sync adds itself`);
    expect(r.stderr).toContain(`use ${simulator.url}`);
    expect(simulator.requests).toEqual([]);
  });
});

describe('commands say what they did, not what they would have done', () => {
  it('restore without a backup file: a clear message and exit 1', async () => {
    const r = await runCli(['restore'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('there is no backup file at');
    expect(r.stderr).toContain('--backup-file');
    expect(r.stdout).toBe('');
  });

  it('--adopt --dry-run does not say it adopted anything, and records nothing', async () => {
    await simulator.close();
    simulator = await startSimulator({ apiKey: 'newcomer-key', websites: [{ domain: 'a.example.com' }] });
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: [ref]\n',
    );
    const r = await runCli(['--once', '--adopt', '--dry-run'], toolEnv(simulator, dir));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('Adopted');
    expect(r.stdout).toContain('Adopts 1 website(s) when applied');
    await expect(readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('export of an account with 108 password websites names the variables without a 5,000-character line', async () => {
    await simulator.close();
    const websites = Array.from({ length: 108 }, (_, i) => ({
      domain: `site${i}.example.com`,
      privacy: 2 as const,
      password: `pw-${i}`,
    }));
    simulator = await startSimulator({ apiKey: 'newcomer-key', websites });
    const r = await runCli(['export'], toolEnv(simulator, dir));
    expect(r.code, r.stderr).toBe(0);
    expect(writes()).toEqual([]);
    for (const line of r.stderr.split('\n')) expect(line.length).toBeLessThan(300);
    expect(r.stderr).toContain('108 password-protected websites read their password from a variable each');
    expect(r.stdout).toContain('WEBSITES_SYNC_PASSWORD_SITE107_EXAMPLE_COM');
  });
});
