import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatCount } from '../../src/model/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type CliResult, startCli, toolEnv } from '../helpers/cli.js';

// The files read whole for a secret or a setting (the API key, the key before a rotation, the state's
// URL) may be the wrong path or a hostile one: a FIFO nobody writes blocked the read for ever (a
// daemon never ready, `--once` never ending), a device or a file of megabytes was read whole. Each is
// refused at once, naming the option, the path and what is allowed; nothing is sent or written.

const KEY_HOLDS = 'a regular file holding an API key, one line of at most 4096 characters';
const URL_HOLDS = 'a regular file holding a postgres:// URL';

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;
let fifo: string;

beforeEach(async () => {
  simulator = await startSimulator({});
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-secret-files-'));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
  env = toolEnv(simulator, dir);
  fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
});

afterEach(async () => {
  await simulator.close();
});

/**
 * The run's end; one still running after 15 s (blocked on a FIFO for ever, before the fix) is killed
 * and reported as such instead of holding the test to its own timeout.
 */
async function runBounded(args: string[], extra: Record<string, string>): Promise<CliResult> {
  const started = startCli(args, { ...env, ...extra });
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<'stuck'>((resolve) => {
    timer = setTimeout(() => resolve('stuck'), 15_000);
  });
  const ended = await Promise.race([started.done, stuck]);
  clearTimeout(timer);
  if (ended === 'stuck') {
    started.child.kill('SIGKILL');
    await started.done;
    throw new Error(`websites-sync ${args.join(' ')} did not end within 15 s: ${started.output().stderr}`);
  }
  return ended;
}

/** Nothing was sent, and nothing written: the directory holds only what the test put there. */
async function expectNothingDone(): Promise<void> {
  expect(simulator.requests).toEqual([]);
  expect((await readdir(dir)).sort()).toEqual(['fifo', 'websites.yaml']);
}

describe('a file read whole for a secret or a setting that is not a regular file', () => {
  it.each([
    ['WEBSITES_SYNC_API_KEY_FILE', KEY_HOLDS, 'WEBSITES_SYNC_API_KEY'],
    ['WEBSITES_SYNC_PREVIOUS_API_KEY_FILE', KEY_HOLDS, 'WEBSITES_SYNC_PREVIOUS_API_KEY'],
    ['WEBSITES_SYNC_STATE_URL_FILE', URL_HOLDS, 'WEBSITES_SYNC_STATE'],
  ])(
    '%s naming a FIFO nobody writes: refused at once, the variable offered, nothing sent',
    async (name, holds, variable) => {
      const run = await runBounded(['--once'], { [name]: fifo });
      expect(run.code, run.stderr).toBe(1);
      // A pipe (`<(pass show key)`) is refused too: the message says how to take the value from a command.
      expect(run.stderr).toContain(
        `${name}: ${fifo} is a FIFO, not a regular file; give ${holds}, or set ${variable}="$(command)" to take it from a command`,
      );
      await expectNothingDone();
    },
  );

  it('a daemon whose --api-key-file is a FIFO ends at start, saying so, instead of never becoming ready', async () => {
    const run = await runBounded(['--api-key-file', fifo, '--listen', '127.0.0.1:0'], {});
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`--api-key-file: ${fifo} is a FIFO, not a regular file; give ${KEY_HOLDS}`);
    await expectNothingDone();
  });

  it('a device (/dev/null) is named as one, not read', async () => {
    for (const [option, holds] of [
      ['--api-key-file', KEY_HOLDS],
      ['--state-url-file', URL_HOLDS],
    ] as const) {
      const run = await runBounded(['--once', option, '/dev/null'], {});
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `${option}: /dev/null is a character device, not a regular file; give ${holds}`,
      );
    }
    await expectNothingDone();
  });
});

describe('a file read whole for a secret or a setting that is larger than what it holds', () => {
  it('a state URL file of megabytes: refused with its size and the bound, the password never shown', async () => {
    const file = join(dir, 'state-url');
    const url = 'postgres://sync:hunter2-secret@127.0.0.1:1/ops';
    await writeFile(file, `${url}\n${' '.repeat(3_000_000)}`);
    const run = await runBounded(['--once'], { WEBSITES_SYNC_STATE_URL_FILE: file });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `WEBSITES_SYNC_STATE_URL_FILE: ${file} holds ${formatCount(url.length + 3_000_001)} bytes; at most 8,192 are allowed for a postgres:// URL: is it the right file? It was not read further`,
    );
    expect(run.stdout + run.stderr).not.toContain('hunter2');
    expect(simulator.requests).toEqual([]);
  });

  it('a key file at the bound is read; one byte more is refused', async () => {
    const file = join(dir, 'key');
    // A valid key, then blank lines up to 8192 bytes: taken (the blank lines are trimmed).
    await writeFile(file, `${simulator.apiKey}\n`.padEnd(8192, '\n'));
    const taken = await runBounded(['--once', '--dry-run', '--api-key-file', file], {});
    expect(taken.code, taken.stderr).toBe(0);
    await writeFile(file, `${simulator.apiKey}\n`.padEnd(8193, '\n'));
    const requests = simulator.requests.length;
    const refused = await runBounded(['--once', '--dry-run', '--api-key-file', file], {});
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(
      `--api-key-file: ${file} holds 8,193 bytes; at most 8,192 are allowed for an API key, one line of at most 4096 characters: is it the right file? It was not read further`,
    );
    expect(refused.stderr).not.toContain(simulator.apiKey);
    expect(simulator.requests.length).toBe(requests);
  });
});
