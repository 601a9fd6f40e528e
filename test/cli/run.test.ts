import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { Redactor } from '../../src/model/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { toolEnv } from '../helpers/cli.js';

// The top-level handler: an unexpected error (a bug; here, stdout failing under the plan) is one line,
// with its stack only when debug or trace logging was asked for, by whichever spelling or variable.

let simulator: Simulator;
let env: Record<string, string>;

beforeAll(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-run-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_FORMAT: 'json' };
  await writeFile(env.WEBSITES_SYNC_MANIFEST as string, 'version: 1\nwebsites:\n  - domain: b.example.com\n');
});

afterAll(async () => {
  await simulator.close();
});

async function internalError(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  let stderr = '';
  const io = {
    stdout: {
      write() {
        throw new Error('stdout went away');
      },
    } as unknown as NodeJS.WritableStream,
    stderr: {
      write(text: string) {
        stderr += text;
        return true;
      },
    } as unknown as NodeJS.WritableStream,
    env: { ...env, WEBSITES_SYNC_LOG_LEVEL: 'silent', ...extraEnv },
    redactor: new Redactor(),
  };
  expect(await run(['--once', '--dry-run', '--output', 'json', ...args], io)).toBe(1);
  return stderr;
}

describe('an internal error', () => {
  it('is one line without debug logging', async () => {
    expect(await internalError([])).toBe('websites-sync: internal error: stdout went away\n');
  });

  it.each([
    [['--log-level=debug'], {}],
    [['--log-level', 'debug'], {}],
    [['--log-level', 'trace'], {}],
    [[], { WEBSITES_SYNC_LOG_LEVEL: 'debug' }],
  ])('shows its stack with %j %j', async (args, extraEnv) => {
    expect(await internalError(args, extraEnv)).toMatch(/internal error: Error: stdout went away\n\s+at /);
  });
});

describe('the CLI process', () => {
  // Reading an error's stack makes V8 find the line ends of the whole CLI script, and Node reads the
  // stack of every error a socket is destroyed with (undici's, at each close): a stack is recorded only
  // at the levels that show one. The built entry (dist/cli/cli.js, `npm run build`) in a process of its own.
  const built = (name: string) => pathToFileURL(join(import.meta.dirname, `../../dist/cli/${name}.js`)).href;
  const child = `
import { main } from ${JSON.stringify(built('cli'))};
import { catchSignals } from ${JSON.stringify(built('early-signals'))};
const { exitCode } = await main(['--version'], catchSignals());
process.stderr.write('exit ' + exitCode + ', stack frames ' + Error.stackTraceLimit);
`;

  it.each([
    ['info', 0],
    ['debug', 10],
    ['trace', 10],
  ])('at the %s level records stacks of %i frames', async (level, frames) => {
    const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', child], {
      env: { ...process.env, WEBSITES_SYNC_LOG_LEVEL: level },
    });
    expect(stderr).toBe(`exit 0, stack frames ${frames}`);
  });
});

describe('stacks kept by a run', () => {
  // The daemon keeps them at every level: Node prints its crash, weeks later, with them.
  it.each([
    [['--once', '--dry-run'], 'info', false],
    [['--once', '--dry-run'], 'debug', true],
    [['validate'], 'warn', false],
    [[], 'info', true],
  ])('%j at the %s level: %s', async (args, level, keeps) => {
    let kept: boolean | undefined;
    const io = {
      stdout: { write: () => true } as unknown as NodeJS.WritableStream,
      stderr: { write: () => true } as unknown as NodeJS.WritableStream,
      env: { ...env, WEBSITES_SYNC_LOG_LEVEL: level },
      redactor: new Redactor(),
    };
    // Told before the command runs; the throw stops it there (the daemon would run on).
    const code = await run(args, io, (_command, { keepsStacks }) => {
      kept = keepsStacks;
      throw new Error('stopped before the command');
    });
    expect([code, kept]).toEqual([1, keeps]);
  });
});
