import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { logRetry } from '../../src/cli/connect.js';
import { createLogger } from '../../src/cli/logger.js';
import {
  ConditionLog,
  Daemon,
  type DaemonHandle,
  DaemonMetrics,
  keyAdvice,
  type LaunchOptions,
  launchDaemon,
  type RunReport,
} from '../../src/daemon/index.js';
import { connectService as connect, type RateBudget, type RetryTuning } from '../../src/service/index.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { openStateStore } from '../../src/state/index.js';

// A daemon in this process, against the real simulator, watching real files in a temp directory.
// Everything waits on events (runs finishing, log lines), never on sleeps.

export interface Site {
  domain: string;
  privacy?: 'public' | 'private';
}

export function manifestText(sites: Site[], extra = ''): string {
  const lines = ['version: 1', 'websites:'];
  for (const site of sites) {
    lines.push(`  - domain: ${site.domain}`);
    if (site.privacy) lines.push(`    privacy: ${site.privacy}`);
  }
  return `${lines.join('\n')}\n${extra}`;
}

export type LogLine = Record<string, unknown> & { msg: string };

export interface FixtureOptions {
  manifest: string;
  /** Lay the directory out as a Kubernetes ConfigMap volume (`..data` symlink). */
  configMap?: boolean;
  intervalMs?: number;
  debounceMs?: number;
  dryRun?: boolean;
  simulator?: SimulatorOptions;
  daemon?: Partial<LaunchOptions>;
  /** The client's requests go through this budget (as the CLI's do). */
  budget?: RateBudget;
  /** The client's retries (the defaults' pauses last seconds). */
  retry?: Partial<RetryTuning>;
  /**
   * The key comes from a file (`--api-key-file`) in a directory of its own: written plainly, or laid
   * out as a Kubernetes Secret volume (`..data` symlink). A new key read there gets a new client.
   */
  keyFile?: 'plain' | 'secret';
}

export interface Fixture {
  dir: string;
  file: string;
  sim: Simulator;
  handle: DaemonHandle;
  metrics: DaemonMetrics;
  signals: EventEmitter;
  logs: LogLine[];
  runs: RunReport[];
  /** Most runs seen in progress at once. */
  maxConcurrent: number;
  /**
   * Resolves once every file event so far has been looked at and the runs it caused are over: a marker
   * file is written beside the manifest, and the watcher reports events in order. Its name starts with
   * `..`, as a ConfigMap's internals do: the watcher looks at those (and the manifest's name) only.
   */
  settle(): Promise<void>;
  /** Resolves once `condition` holds, re-checked after every log line and run; rejects after `timeoutMs`. */
  until(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the first run numbered above `after` that matches. */
  runAfter(after: number, match?: (run: RunReport) => boolean): Promise<RunReport>;
  /** SIGHUP, as an operator asks for a resync; resolves with the first later run that matches. */
  resync(match?: (run: RunReport) => boolean): Promise<RunReport>;
  url(path: string): string;
  /** The API key file (with `keyFile`). */
  keyFile: string;
  close(): Promise<void>;
}

const DEFAULTS = {
  env: {},
  prune: false,
  force: false,
  concurrency: 4,
  listen: { host: '127.0.0.1', port: 0 },
};

export async function startFixture(options: FixtureOptions): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-daemon-'));
  const file = join(dir, 'websites.yaml');
  if (options.configMap) await createConfigMap(dir, options.manifest);
  else await writeFile(file, options.manifest);
  const sim = await startSimulator(options.simulator);
  const events = new EventEmitter();
  const { logs, logger } = captureLogs(events);
  const metrics = new DaemonMetrics();
  // As the CLI's daemon: the client's retries are logged through the daemon's conditions.
  const conditions = new ConditionLog();
  const keyFile = join(dir, 'secret', 'api-key');
  if (options.keyFile) await writeSecret(keyFile, sim.apiKey, options.keyFile === 'secret');
  const clientFor = (apiKey: string) =>
    connect({
      baseUrl: sim.url,
      apiKey,
      version: 'test',
      timeoutMs: 5_000,
      concurrency: 4,
      hooks: { ...metrics.hooks, onRetry: logRetry(logger, conditions) },
      redact: (text) => text,
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      keyAdvice: keyAdvice(options.keyFile ? { path: keyFile, source: '--api-key-file' } : undefined),
    });
  let client = clientFor(sim.apiKey);
  // As the CLI does (commands/daemon.ts): the client before is closed, no run uses it any more.
  const reconnect = (apiKey: string) => {
    void client.close();
    client = clientFor(apiKey);
    return { service: client.service, secret: `test-secret:${apiKey}` };
  };
  const signals = new EventEmitter();
  const launch: LaunchOptions = {
    ...DEFAULTS,
    manifest: file,
    service: client.service,
    ...(options.keyFile
      ? { keyFile: { path: keyFile, source: '--api-key-file', apiKey: sim.apiKey, reconnect } }
      : {}),
    baseUrl: sim.url,
    secret: 'test-secret',
    // Beside the manifest on purpose: saving it must not look like a manifest change.
    store: await openStateStore({ location: join(dir, '.websites-sync-state.json') }),
    dryRun: options.dryRun ?? false,
    intervalMs: options.intervalMs ?? 3_600_000,
    debounceMs: options.debounceMs ?? 50,
    logger,
    metrics,
    conditions,
    signals,
    ...options.daemon,
  };
  const daemon = new Daemon(launch);
  const runs = trackRuns(daemon, events);
  const handle = await launchDaemon(launch, daemon);
  const until = (condition: () => boolean, what: string, timeoutMs = 15_000) =>
    waitUntil(events, condition, what, timeoutMs);
  return {
    dir,
    file,
    sim,
    handle,
    metrics,
    signals,
    logs,
    runs: runs.list,
    get maxConcurrent() {
      return runs.maxConcurrent;
    },
    until,
    runAfter: async (after, match = () => true) => {
      const found = () => runs.list.find((run) => run.run > after && match(run));
      await until(() => found() !== undefined, `a run after run ${after}`);
      return found()!;
    },
    resync: async (match = () => true) => {
      const last = runs.list.at(-1)?.run ?? 0;
      signals.emit('SIGHUP', 'SIGHUP');
      const found = () => runs.list.find((run) => run.run > last && match(run));
      await until(() => found() !== undefined, `a run after the SIGHUP that followed run ${last}`);
      return found()!;
    },
    settle: () => settle({ dir, logs, handle, until }),
    url: (path) => `${handle.health!.url}${path}`,
    keyFile,
    close: async () => {
      await handle.shutdown('test over');
      await client.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every log line, parsed; each one is a moment to re-check what a test waits for. */
function captureLogs(events: EventEmitter) {
  const logs: LogLine[] = [];
  const logger = createLogger({
    level: 'trace',
    destination: {
      write: (line: string) => {
        logs.push(JSON.parse(line) as LogLine);
        events.emit('tick');
      },
    },
  });
  return { logs, logger };
}

/** Listens from before the first run, so no run is missed and overlaps would be seen. */
function trackRuns(daemon: Daemon, events: EventEmitter) {
  const runs = { list: [] as RunReport[], active: 0, maxConcurrent: 0 };
  daemon.on('run-started', () => {
    runs.active++;
    runs.maxConcurrent = Math.max(runs.maxConcurrent, runs.active);
  });
  daemon.on('run-finished', (run) => {
    runs.active--;
    runs.list.push(run);
    events.emit('tick');
  });
  daemon.on('idle', () => events.emit('tick'));
  return runs;
}

let markers = 0;

async function settle(f: Pick<Fixture, 'logs' | 'handle' | 'until'> & { dir: string }): Promise<void> {
  // Named as the kubelet names a ConfigMap's new directory: a name the watcher looks at.
  const marker = `..2026_01_01_00_00_00.${++markers}`;
  const from = f.logs.length;
  await writeFile(join(f.dir, marker), '');
  const after = (index: number, match: (line: LogLine) => boolean) =>
    f.logs.findIndex((line, i) => i > index && match(line));
  const settled = () => {
    const seen = after(from - 1, (l) => l.msg === 'file event' && String(l.path).endsWith(marker));
    // A look that started after the marker's event read the file after every earlier event.
    const started = seen < 0 ? -1 : after(seen, (l) => l.msg === 'looking at the manifest');
    const ended = started < 0 ? -1 : after(started, (l) => l.msg === 'manifest looked at');
    return ended >= 0 && !f.handle.daemon.busy;
  };
  await f.until(settled, 'the watcher to settle');
}

function waitUntil(events: EventEmitter, condition: () => boolean, what: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      events.off('tick', check);
      resolve();
    };
    const timer = setTimeout(() => {
      events.off('tick', check);
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    events.on('tick', check);
    check();
  });
}

/** Editors: write a temporary file, rename it over the manifest (a new inode). */
export async function saveByRename(file: string, text: string | Uint8Array): Promise<void> {
  const temp = `${file}.tmp-${process.hrtime.bigint()}`;
  await writeFile(temp, text);
  await rename(temp, file);
}

/** `echo > websites.yaml`: truncate and rewrite the same inode. */
export async function writeInPlace(file: string, text: string): Promise<void> {
  await writeFile(file, text);
}

/** The kubelet's layout: `websites.yaml` → `..data/websites.yaml`, `..data` → `..<timestamp>`. */
async function createConfigMap(dir: string, text: string, name = 'websites.yaml'): Promise<void> {
  const version = await writeConfigMapVersion(dir, text, name);
  await symlink(version, join(dir, '..data'));
  await symlink(join('..data', name), join(dir, name));
}

/** The key file, as `--api-key-file` names it: plainly, or in a Secret volume's layout (as a ConfigMap's). */
async function writeSecret(file: string, key: string, kubelet: boolean): Promise<void> {
  await mkdir(dirname(file));
  if (kubelet) await createConfigMap(dirname(file), `${key}\n`, basename(file));
  else await writeFile(file, `${key}\n`);
}

async function writeConfigMapVersion(dir: string, text: string, file: string): Promise<string> {
  const name = `..2026_01_01_00_00_00.${process.hrtime.bigint()}`;
  await mkdir(join(dir, name));
  await writeFile(join(dir, name, file), text);
  return name;
}

/**
 * The kubelet's update of a ConfigMap or Secret volume: a new timestamped directory, `..data_tmp`
 * renamed over `..data`, the old one removed.
 */
export async function swapConfigMap(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const previous = await readlink(join(dir, '..data'));
  const version = await writeConfigMapVersion(dir, text, basename(file));
  await symlink(version, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  await rm(join(dir, previous), { recursive: true, force: true });
}

/** Reads a sample value from Prometheus text, e.g. `metric('websites_sync_runs_total{result="success"}')`. */
export function metricValue(text: string, sample: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}
