// The daemon scenarios: the built CLI in daemon mode, idle, then driven through SIGHUP run after run.
// CPU and RSS are read from its own /metrics (prom-client's process metrics), i.e. from its process.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_KEY, manifestOf, PASSWORD_ENV, websites, writeConvergedState } from './fixtures.mjs';
import { countLog, runRequests } from './measure.mjs';
import { freePort, scrape, spawnTool, startSim } from './processes.mjs';

const CPU = 'process_cpu_seconds_total';
const RSS = 'process_resident_memory_bytes';
const HEAP = 'nodejs_heap_size_used_bytes';

/** Live heap after a full GC, at run 10 and at the last run, of the same daemon run in a child process. */
async function liveHeap({ sim, manifest, state, runs, checkpoint }) {
  const script = fileURLToPath(new URL('../daemon-heap.mjs', import.meta.url));
  const config = JSON.stringify({ url: sim.url, manifest, state, runs, checkpoint });
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script, config]);
  return JSON.parse(stdout);
}

/** Starts the daemon and hands back a way to wait for its next finished run. */
async function startDaemon({ sim, manifest, state, port }) {
  const unread = [];
  const waiters = [];
  const child = spawnTool(
    [
      '--manifest',
      manifest,
      '--base-url',
      sim.url,
      '--state-file',
      state,
      '--interval',
      '1h',
      '--listen',
      `127.0.0.1:${port}`,
      '--log-level',
      'info',
    ],
    {
      env: { WEBSITES_SYNC_API_KEY: API_KEY, ...PASSWORD_ENV },
      onLine: (line) => {
        let entry;
        try {
          entry = JSON.parse(line);
        } catch {
          return;
        }
        if (entry.stage !== 'daemon' || typeof entry.result !== 'string') return;
        const waiter = waiters.shift();
        if (waiter) waiter(entry);
        else unread.push(entry);
      },
    },
  );
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const nextRun = () =>
    unread.length > 0
      ? Promise.resolve(unread.shift())
      : new Promise((resolve, reject) => {
          waiters.push(resolve);
          exited.then((code) => reject(new Error(`the daemon exited (${code})`)));
        });
  return { child, nextRun, exited };
}

/**
 * Rows 6 and 7: idle CPU over `idleMs`, then RSS across `runs` back-to-back no-change runs, compared
 * between run `checkpoint` (the daemon warmed up) and the last.
 */
export async function daemonScenarios(
  dir,
  { count = 50, idleMs = 60_000, runs = 5_000, checkpoint = 1_000 } = {},
) {
  const sim = await startSim({ websites: count, latencyMs: 0 });
  const sites = websites(count);
  // In a directory of its own, as /config is in the image: the daemon also watches the manifest
  // directory's parent (to see it recreated), and the bench's parent is the shared temporary directory,
  // whose churn from other processes would count as the daemon's idle CPU.
  mkdirSync(join(dir, 'daemon-config'), { recursive: true });
  const manifest = join(dir, 'daemon-config', 'daemon.yaml');
  const state = join(dir, 'daemon-state.json');
  writeFileSync(manifest, manifestOf(sites));
  await writeConvergedState(state, sim.url, sites);
  const port = await freePort();
  const metrics = `http://127.0.0.1:${port}/metrics`;
  const daemon = await startDaemon({ sim, manifest, state, port });
  try {
    const first = await daemon.nextRun();
    if (first.result !== 'success') throw new Error(`the daemon's first run ended: ${first.result}`);
    await sleep(1000);
    await sim.clear();
    const before = await scrape(metrics, [CPU]);
    await sleep(idleMs);
    const after = await scrape(metrics, [CPU]);
    const idleRequests = (await sim.log()).length;

    await sim.clear();
    let early;
    const samples = [];
    const started = performance.now();
    const cpuStart = (await scrape(metrics, [CPU]))[CPU];
    for (let run = 1; run <= runs; run++) {
      const done = daemon.nextRun();
      daemon.child.kill('SIGHUP');
      const entry = await done;
      if (entry.result !== 'success') throw new Error(`run ${run} ended: ${entry.result}`);
      if (run === checkpoint) early = await scrape(metrics, [RSS, HEAP]);
      if (run % (runs / 10) === 0 || run === 10 || run === checkpoint) {
        samples.push({ run, ...(await scrape(metrics, [RSS, HEAP])) });
      }
    }
    const wallMs = performance.now() - started;
    const late = await scrape(metrics, [RSS, HEAP, CPU]);
    const log = await sim.log();
    daemon.child.kill('SIGTERM');
    const code = await daemon.exited;
    const heap = await liveHeap({ sim, manifest, state, runs, checkpoint });
    return {
      idle: {
        id: 'daemon-idle',
        name: `Daemon idle for ${idleMs / 1000} s (${count} websites, converged)`,
        cpuMs: (after[CPU] - before[CPU]) * 1000,
        corePercent: ((after[CPU] - before[CPU]) * 1000 * 100) / idleMs,
        requests: { made: idleRequests, min: 0 },
        wallMs: idleMs,
      },
      runs: {
        id: 'daemon-runs',
        name: `Daemon: ${runs.toLocaleString('en')} consecutive no-change runs (SIGHUP)`,
        // Each resync lists the account and reads its plan.
        requests: { made: countLog(log).total, min: runs * runRequests(count), kinds: countLog(log).byKind },
        wallMs,
        cpuMs: (late[CPU] - cpuStart) * 1000,
        count: runs,
        checkpoint,
        rss: { early: early[RSS], afterAll: late[RSS], heapEarly: early[HEAP], heapAll: late[HEAP] },
        liveHeap: heap,
        samples: samples.map((s) => ({ run: s.run, rssMb: s[RSS] / 2 ** 20, heapMb: s[HEAP] / 2 ** 20 })),
        exitCode: code,
        checks: [{ label: 'stopped with exit 0 on SIGTERM', ok: code === 0 }],
      },
    };
  } finally {
    if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    await sim.close();
  }
}
