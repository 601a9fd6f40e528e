import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// An error about an option names it where the user set it: the environment variable when the value
// came from there, the flag (as typed) when it was given; never a short alias the user did not type.

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-options-'));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
  await mkdir(join(dir, 'a-directory'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

/** Exit 1 with exactly this message, and nothing sent to the service. */
async function expectRefused(args: string[], extraEnv: Record<string, string>, message: string) {
  const run = await runCli(args, { ...env, ...extraEnv });
  expect(run.stderr).toBe(`websites-sync: ${message}\n`);
  expect(run.code).toBe(1);
  expect(simulator.requests).toEqual([]);
}

describe('a value from the environment', () => {
  it.each([
    [
      'WEBSITES_SYNC_BASE_URL',
      'http://example.com',
      'plain http:// to example.com would send the API key unencrypted; use https://, or --allow-insecure-http if you must',
    ],
    ['WEBSITES_SYNC_BASE_URL', 'notaurl', '"notaurl" is not a URL; use e.g. https://stats.example.com'],
    ['WEBSITES_SYNC_API_KEY_FILE', '/nonexistent', 'cannot read /nonexistent (ENOENT)'],
  ])('%s=%s is named as the variable, not as a flag', async (variable, value, message) => {
    await expectRefused(['--once', '--dry-run'], { [variable]: value }, `${variable}: ${message}`);
  });

  it('WEBSITES_SYNC_LISTEN=bad is named as the variable (daemon)', async () => {
    await expectRefused(
      [],
      { WEBSITES_SYNC_LISTEN: 'bad' },
      'WEBSITES_SYNC_LISTEN: "bad" is not HOST:PORT; use e.g. 0.0.0.0:9090 or 127.0.0.1:9090',
    );
  });

  it('the same value given as a flag names the flag', async () => {
    await expectRefused(
      ['--once', '--dry-run', '--base-url', 'notaurl'],
      {},
      '--base-url: "notaurl" is not a URL; use e.g. https://stats.example.com',
    );
    await expectRefused(
      ['--listen', 'bad'],
      {},
      '--listen: "bad" is not HOST:PORT; use e.g. 0.0.0.0:9090 or 127.0.0.1:9090',
    );
  });
});

describe('a path option naming a directory', () => {
  const directory = () => join(dir, 'a-directory');

  it.each([
    ['WEBSITES_SYNC_BACKUP_FILE', ['restore']],
    ['WEBSITES_SYNC_STATE_FILE', ['restore']],
    ['WEBSITES_SYNC_STATE_FILE', ['--once']],
    ['WEBSITES_SYNC_BACKUP_FILE', ['--once', '--prune']],
    ['WEBSITES_SYNC_API_KEY_FILE', ['export']],
    ['WEBSITES_SYNC_MANIFEST', ['validate']],
  ])('%s with %j: exit 1 naming the variable and that a file is expected', async (variable, args) => {
    await expectRefused(
      args,
      { [variable]: directory() },
      `${variable}: ${directory()} is a directory; give the path of a file`,
    );
  });

  it.each([
    [['restore', '--backup-file'], '--backup-file'],
    [['--once', '--state-file'], '--state-file'],
    [['--once', '--api-key-file'], '--api-key-file'],
    [['validate', '-f'], '-f'],
    [['validate', '--manifest'], '--manifest'],
    [['--once', '--dry-run', '--out'], '--out'],
    [['--once', '--plan'], '--plan'],
    [['export', '--out'], '--out'],
  ])('%j DIRECTORY: exit 1 naming the flag as typed', async (args, flag) => {
    await expectRefused(
      [...args, directory()],
      {},
      `${flag}: ${directory()} is a directory; give the path of a file`,
    );
  });

  it('the backup file beside the state file, a directory: restore names it, no internal error', async () => {
    await mkdir(join(dir, '.websites-sync-deleted.jsonl'));
    await expectRefused(
      ['restore'],
      {},
      `the backup file ${join(dir, '.websites-sync-deleted.jsonl')} (beside the state file) is a directory; set --backup-file (WEBSITES_SYNC_BACKUP_FILE) to a regular file`,
    );
  });
});

describe('export --out', () => {
  it('an existing file is refused naming --out, the option the user typed', async () => {
    const file = join(dir, 'm.yaml');
    await writeFile(file, 'mine\n');
    const run = await runCli(['export', '--out', file], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `websites-sync: --out: ${file} exists; choose another file, or add --force to replace it\n`,
    );
  });

  it('-o and --output name a format; the error names the one typed', async () => {
    for (const flag of ['-o', '--output']) {
      const run = await runCli(['export', flag, 'json'], env);
      expect(run.stderr).toBe(
        `websites-sync: export ${flag}: "json" is not a format; export writes yaml only (text, json and markdown are formats of a run's plan). To write the manifest to a file: --out FILE\n`,
      );
    }
  });
});

describe('an option the command does not take', () => {
  it.each([
    [
      ['schema', '--once'],
      '--once is not accepted by the schema command; only by a run. See websites-sync schema --help.',
    ],
    [
      ['validate', '--prune'],
      '--prune is not accepted by the validate command; only by a run. See websites-sync validate --help.',
    ],
    [
      ['restore', '--concurrency', '2'],
      '--concurrency is not accepted by the restore command; only by a run and export. See websites-sync restore --help.',
    ],
    [
      ['--schema'],
      '--schema is not accepted by a run (websites-sync without a command); only by export. See websites-sync --help.',
    ],
    [['--frobnicate'], 'unknown option --frobnicate. See websites-sync --help.'],
    [['--prnue'], 'unknown option --prnue; did you mean --prune? See websites-sync --help.'],
    [['validate', '--froce'], 'unknown option --froce. See websites-sync validate --help.'],
  ])('%j: says so, then where the options are listed', async (args, message) => {
    const run = await runCli(args, env);
    expect(run.stderr).toBe(`websites-sync: ${message}\n`);
    expect(run.code).toBe(1);
  });
});

describe('the simulator among the options', () => {
  it('is found after global options: its own options are not called unknown', async () => {
    const run = await runCli(['-f', 'x.yaml', 'simulator', '--port', '0'], env);
    expect(run.stderr).toBe(
      'websites-sync simulator: -f (--manifest) is not accepted by the simulator command; only by a run, validate, state and restore. See websites-sync simulator --help.\n',
    );
    expect(run.code).toBe(1);
    const help = await runCli(['-h', 'simulator'], env);
    expect(help.stdout).toContain('Usage: websites-sync simulator [options]');
  });

  it('suggests the closest of its options for a typo', async () => {
    const run = await runCli(['simulator', '--prot', '0'], env);
    expect(run.stderr).toBe(
      'websites-sync simulator: unknown option --prot; did you mean --port? See websites-sync simulator --help.\n',
    );
    expect(run.code).toBe(1);
  });
  it('refuses a --rotated-key that could not travel in a header', async () => {
    const run = await runCli(['simulator', '--port', '0', '--rotated-key', 'a key'], env);
    expect(run.stderr).toBe(
      'websites-sync simulator: --rotated-key must be printable ASCII without spaces (it travels in a header)\n',
    );
    expect(run.code).toBe(1);
  });
});
