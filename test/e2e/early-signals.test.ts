import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { CLI, toolEnv } from '../helpers/cli.js';

// Issue 19 §6: signals are handled from the first instant. A SIGHUP in the first ~150 ms of the daemon
// (while its modules load) used to kill it: Node's default action, before any handler was installed.
// WEBSITES_SYNC_TEST_HOLD_START makes start-up wait, right after the handlers are installed, for a line
// on stdin: the signal then arrives exactly when the process is least ready for it, every time.

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

type Line = Record<string, unknown> & { msg?: string; text: string };

function startHeld(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env, WEBSITES_SYNC_TEST_HOLD_START: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanup.push(() => kill(child));
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  createInterface({ input: child.stderr }).on('line', (text) => {
    lines.push({ ...(text.startsWith('{') ? (JSON.parse(text) as object) : {}), text });
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = async (match: (line: Line) => boolean): Promise<Line> => {
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited; stderr:\n${text()}`);
      await Promise.race([new Promise<void>((wake) => waiters.push(wake)), exited]);
    }
  };
  const text = () => lines.map((l) => l.text).join('\n');
  /** Sends `signal` while start-up is held (its handlers just installed, nothing else done), then resumes. */
  const signalWhileHeld = async (signal: NodeJS.Signals) => {
    await line((l) => l.text.includes('start-up held'));
    child.kill(signal);
    child.stdin.end('go\n');
  };
  return { child, lines, exited, line, signalWhileHeld, stdout: () => stdout, text };
}

function kill(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGKILL');
  return new Promise((resolve) => child.once('exit', resolve));
}

async function setUp(): Promise<{ simulator: Simulator; env: Record<string, string> }> {
  const simulator = await startSimulator({});
  cleanup.push(() => simulator.close());
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-early-signal-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
  return { simulator, env: toolEnv(simulator, dir) };
}

describe('a signal before the command is ready', () => {
  it('daemon: a SIGHUP during start-up is a resync once it is ready, not its death', async () => {
    const { simulator, env } = await setUp();
    const daemon = startHeld([], env);
    await daemon.signalWhileHeld('SIGHUP');

    await daemon.line((l) => l.msg === 'run requested' && l.signal === 'SIGHUP');
    const resync = await daemon.line(
      (l) =>
        typeof l.msg === 'string' &&
        l.msg.startsWith('run ') &&
        Array.isArray(l.triggers) &&
        l.triggers.includes('signal'),
    );
    expect(resync).toMatchObject({ result: 'success' });
    expect(daemon.child.exitCode).toBeNull();
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  });

  it('daemon: a SIGTERM during start-up is a clean stop once it can be', async () => {
    const { env } = await setUp();
    const daemon = startHeld([], env);
    await daemon.signalWhileHeld('SIGTERM');

    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(daemon.lines.find((l) => l.msg?.startsWith('shutting down'))).toMatchObject({ reason: 'SIGTERM' });
    expect(daemon.lines.at(-1)).toMatchObject({ msg: 'stopped' });
  });

  it('--once: a SIGTERM during start-up stops it with its message and exit status, nothing changed', async () => {
    const { simulator, env } = await setUp();
    const once = startHeld(['--once'], env);
    await once.signalWhileHeld('SIGTERM');

    expect(await once.exited, once.text()).toEqual({ code: 143, signal: null });
    expect(once.text()).toContain('websites-sync: SIGTERM: no new operations');
    expect(once.text()).toContain('interrupted before any change was made');
    // Stopped before its first request: nothing was even read.
    expect(simulator.requests).toEqual([]);
  });

  it('a command that handles no signals is stopped by one as before', async () => {
    const { env } = await setUp();
    const validate = startHeld(['validate'], env);
    await validate.signalWhileHeld('SIGTERM');

    expect(await validate.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
