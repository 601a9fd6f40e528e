// The two kinds of process a scenario runs: the simulator (forked, answering over IPC) and the tool
// (the built CLI, spawned as a user would run it, with its resource usage written at exit).
import { fork, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
export const CLI = here('../../dist/cli/main.js');
const SIM_SERVER = here('../sim-server.mjs');
const RUSAGE_HOOK = pathToFileURL(here('../rusage.mjs')).href;

/**
 * Node options the built CLI asks for in its shebang (`#!/usr/bin/env -S node --flag ...`), so that the
 * benchmark runs it exactly as the installed `websites-sync` command runs; none with `#!/usr/bin/env node`.
 */
export function shebangFlags() {
  const first = readFileSync(CLI, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\S*env\s+-S\s+node\s+(.*)$/.exec(first);
  return match ? match[1].trim().split(/\s+/) : [];
}

/** Starts the simulator in its own process; resolves once it listens (seeding included). */
export function startSim(config) {
  const child = fork(SIM_SERVER, [JSON.stringify(config)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  let closing;
  const pending = new Map();
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulator exited (${code}) before it was ready`)));
    child.on('message', (message) => {
      if (message.ready) {
        child.removeAllListeners('exit');
        resolve({
          url: message.url,
          seedMs: message.seedMs,
          ask,
          log: () => ask('log'),
          clear: () => ask('clear'),
          close,
        });
        return;
      }
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    });
  });

  function ask(command) {
    const id = ++next;
    return new Promise((resolve) => {
      pending.set(id, (message) => resolve(message.log));
      child.send({ command, id });
    });
  }
  function close() {
    closing ??= (async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('close');
      await exited;
    })();
    return closing;
  }
}

/**
 * Runs the CLI to completion. Wall time is measured from spawn to exit, so it includes Node's own
 * start-up; CPU and peak RSS come from the tool's process itself.
 */
export async function runTool(args, { env = {}, dir }) {
  const usageFile = join(dir, `rusage-${process.hrtime.bigint()}.json`);
  const started = performance.now();
  // On the clock of the simulator's request log (ms since the epoch), to place its requests in the run.
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...shebangFlags(), '--import', RUSAGE_HOOK, CLI, ...args], {
    env: { ...process.env, ...env, BENCH_RUSAGE_FILE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status)));
  const wallMs = performance.now() - started;
  const endedAt = Date.now();
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  rmSync(usageFile, { force: true });
  return { code, wallMs, startedAt, endedAt, ...usage, stdout: await stdout, stderr: await stderr };
}

/**
 * Wall time of one plain `node ARGS` process (no hook preloaded), from spawn to exit: the start-up row
 * compares the CLI with `node -e 0` this way, both measured alike.
 */
export async function wallOf(args, env = {}) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status)));
  return { code, wallMs: performance.now() - started };
}

/**
 * The instructions a Node process runs, all threads, counted by valgrind's callgrind: they vary by a
 * few percent between runs (V8 seeds its hashes at random), where wall times on a shared machine vary
 * by 25%. Undefined without valgrind.
 */
export async function instructionsOf(args, env = {}) {
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...args],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const output = collect(child.stderr);
  const code = await new Promise((resolve) => {
    child.on('error', () => resolve(undefined));
    child.on('close', (status) => resolve(status));
  });
  if (code === undefined) return undefined;
  const stderr = await output;
  const collected = /Collected : (\d+)/.exec(stderr);
  if (code !== 0 || !collected)
    throw new Error(`valgrind ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`);
  return Number(collected[1]);
}

/** The CLI's own Node options and path, for `wallOf`. */
export const cliCommand = (args) => [...shebangFlags(), CLI, ...args];

/** Spawns the CLI and leaves it running (the daemon); stderr lines go to `onLine`. */
export function spawnTool(args, { env = {}, onLine }) {
  const child = spawn(process.execPath, [...shebangFlags(), CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let buffered = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      onLine(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\n');
    }
  });
  return child;
}

function collect(stream) {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  return new Promise((resolve) => stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))));
}

/** A port nothing listens on right now (for the daemon's --listen). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One sample of a Prometheus text exposition, by metric name (first series). */
export async function scrape(url, names) {
  const text = await (await fetch(url)).text();
  const values = {};
  for (const name of names) {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
    values[name] = match ? Number(match[1]) : undefined;
  }
  return values;
}
