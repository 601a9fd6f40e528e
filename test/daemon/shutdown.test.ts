import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { manifestText } from './fixture.js';

// End to end through the built CLI (`npm test` builds first; alone: npx tsc -p tsconfig.build.json).
const MAIN = join(import.meta.dirname, '../../dist/cli/main.js');
const SITES = Array.from({ length: 12 }, (_, i) => ({ domain: `site-${i + 1}.example.com` }));

type Line = Record<string, unknown> & { msg: string };

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function startCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stderr! }).on('line', (text) => {
    lines.push(JSON.parse(text) as Line);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const lineMatching = async (match: (line: Line) => boolean): Promise<Line> => {
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { child, lines, exited, lineMatching };
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

function kill(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGKILL');
  return new Promise((resolve) => child.once('exit', resolve));
}

describe('daemon: graceful shutdown of the built CLI', () => {
  it('on SIGTERM during an apply: in-flight requests complete, state is written, exit 0', async () => {
    expect(existsSync(MAIN), `${MAIN} is missing: build first (npm run build)`).toBe(true);
    const sim: Simulator = await startSimulator({ faults: { latencyMs: 250 } });
    cleanup.push(() => sim.close());
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-sigterm-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const manifest = join(dir, 'websites.yaml');
    const stateFile = join(dir, 'state.json');
    await writeFile(manifest, manifestText(SITES));

    const cli = startCli(
      ['--manifest', manifest, '--base-url', sim.url, '--state-file', stateFile, '--concurrency', '2'],
      { PATH: process.env.PATH, WEBSITES_SYNC_API_KEY: sim.apiKey },
    );
    cleanup.push(() => kill(cli.child));
    await cli.lineMatching((l) => l.msg === 'create created');
    cli.child.kill('SIGTERM');
    const exit = await cli.exited;

    expect(exit).toEqual({ code: 0, signal: null });
    const created = cli.lines.filter((l) => l.msg === 'create created').map((l) => l.id);
    expect(created.length).toBeGreaterThan(0);
    expect(created.length).toBeLessThan(SITES.length);
    // Every request the service received was answered: none was cut off by the exit.
    expect(sim.requests.filter((r) => typeof r.status !== 'number')).toEqual([]);
    const stored = sim.listWebsites().map((w) => w.id);
    expect(sorted(stored)).toEqual(sorted(created as number[]));
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as { websites: Record<string, unknown> };
    expect(sorted(Object.keys(state.websites).map(Number))).toEqual(sorted(stored));
    expect(cli.lines.find((l) => l.msg.startsWith('run '))).toMatchObject({ result: 'interrupted' });
    expect(cli.lines.at(-1)).toMatchObject({ msg: 'stopped' });
    expect(cli.lines.some((l) => l.msg.startsWith('grace period over'))).toBe(false);
  });
});

// Issue 19 §5: the shutdown waits only for the requests really in flight, and says how many there are:
// a retry waiting for a Retry-After of 4 minutes, the rate limit's window or the key's budget ends at once.
describe('daemon: a stop is prompt, whatever the run waits for', () => {
  async function setUp(onStore: (nth: number, sim: Simulator) => Promise<void> | void) {
    const sim: Simulator = await startSimulator({});
    cleanup.push(() => sim.close());
    let stores = 0;
    sim.onRequest = (req) => (req.method === 'POST' ? onStore(++stores, sim) : undefined);
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-sigterm-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const manifest = join(dir, 'websites.yaml');
    const stateFile = join(dir, 'state.json');
    await writeFile(manifest, manifestText(SITES.slice(0, 4)));
    const cli = startCli(
      ['--manifest', manifest, '--base-url', sim.url, '--state-file', stateFile, '--concurrency', '1'],
      { PATH: process.env.PATH, WEBSITES_SYNC_API_KEY: sim.apiKey },
    );
    cleanup.push(() => kill(cli.child));
    const state = async () =>
      Object.keys((JSON.parse(await readFile(stateFile, 'utf8')) as { websites: object }).websites);
    return { sim, cli, state };
  }

  const stopTimed = async (cli: ReturnType<typeof startCli>) => {
    const sent = Date.now();
    cli.child.kill('SIGTERM');
    const exit = await cli.exited;
    return { ...exit, ms: Date.now() - sent };
  };

  it('SIGTERM while a store waits out a Retry-After of 4 minutes: exit 0 at once, nothing "abandoned"', async () => {
    const { sim, cli, state } = await setUp((nth, s) => {
      if (nth === 3) s.setFaults({ script: ['throttle'], throttleRetryAfterSeconds: 240 });
    });
    await cli.lineMatching((l) => l.reason === 'HTTP 429' && l.retry === 1);
    const exit = await stopTimed(cli);

    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(5_000);
    expect(cli.lines.find((l) => l.msg.startsWith('shutting down'))).toMatchObject({
      inFlight: 0,
      msg: 'shutting down: no new run or operation starts; no request in flight: the run in progress ends now',
    });
    expect(cli.lines.some((l) => /abandoned|grace period over/.test(l.msg))).toBe(false);
    expect(cli.lines.at(-1)).toMatchObject({ msg: 'stopped' });
    expect(sim.listWebsites()).toHaveLength(2);
    expect(await state()).toHaveLength(2);
  });

  it('SIGTERM with no run in progress: exit 0 at once', async () => {
    const { cli } = await setUp(() => {});
    await cli.lineMatching((l) => l.msg === 'run success');
    const exit = await stopTimed(cli);

    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(5_000);
    expect(cli.lines.find((l) => l.msg.startsWith('shutting down'))).toMatchObject({
      msg: 'shutting down: no run in progress',
    });
    expect(cli.lines.some((l) => /abandoned|grace period over/.test(l.msg))).toBe(false);
  });

  it('SIGTERM while a store is really in flight: says so, waits for its answer, records it', async () => {
    let answer: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let arrived: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { sim, cli, state } = await setUp((nth) => {
      if (nth !== 2) return;
      arrived();
      return held;
    });
    await inFlight;
    cli.child.kill('SIGTERM');
    const shutdown = await cli.lineMatching((l) => l.msg.startsWith('shutting down'));
    expect(shutdown).toMatchObject({ inFlight: 1, runInProgress: true });
    expect(shutdown.msg).toMatch(/waiting at most 25s for the 1 request in flight$/);
    answer();
    const exit = await cli.exited;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(sim.listWebsites()).toHaveLength(2);
    expect(await state()).toHaveLength(2);
    expect(cli.lines.at(-1)).toMatchObject({ msg: 'stopped' });
  });
});
