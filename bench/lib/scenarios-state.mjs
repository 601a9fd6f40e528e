// Converged runs of 10,000 websites with the state in a file and in PostgreSQL (a throwaway cluster,
// as the tests start one, or WEBSITES_SYNC_TEST_DATABASE_URL): each run's wall time, and the state's
// share of it (opening the store, taking the lock, reading the state, releasing), measured in-process
// with the same build.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { openStateStore } from '../../dist/state/index.js';
import { startTestDatabase } from '../../test/helpers/postgres.ts';
import { API_KEY, manifestOf, PASSWORD_ENV, SECRET, websites, writeConvergedState } from './fixtures.mjs';
import { median, seconds, writesOf } from './measure.mjs';
import { runTool, startSim } from './processes.mjs';

const ENV = { WEBSITES_SYNC_API_KEY: API_KEY, ...PASSWORD_ENV };
const RUNS = 3;

/** Median of RUNS converged runs; ok when each exits 0 and writes nothing. */
async function converged(sim, args, env, dir) {
  const walls = [];
  let ok = true;
  for (let i = 0; i < RUNS; i++) {
    await sim.clear();
    const run = await runTool(args, { env, dir });
    const writes = writesOf(await sim.log()).length;
    ok &&= run.code === 0 && writes === 0;
    walls.push(run.wallMs);
  }
  return { ok, wallMs: median(walls) };
}

/** What the state costs a run: open, lock, read, release (median of RUNS). */
async function stateMs(location, baseUrl) {
  const logger = pino({ level: 'silent' });
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const at = performance.now();
    const store = await openStateStore({ location, baseUrl });
    const session = await store.lock();
    await session.read({ baseUrl, secret: SECRET, dryRun: false, logger });
    await session.release();
    await store.close();
    times.push(performance.now() - at);
  }
  return median(times);
}

export async function stateBackendScenario(dir, { accountSize = 10_000 } = {}) {
  const sim = await startSim({ websites: accountSize });
  const db = await startTestDatabase();
  try {
    const manifest = join(dir, 'state-backends.yaml');
    const file = join(dir, 'state-backends.json');
    writeFileSync(manifest, manifestOf(websites(accountSize)));
    await writeConvergedState(file, sim.url, websites(accountSize));
    const base = ['--once', '--manifest', manifest, '--base-url', sim.url, '--log-level', 'warn'];
    const url = db.stateUrl('bench');
    const pgEnv = { ...ENV, WEBSITES_SYNC_STATE: url };
    const migrated = await runTool(['state', 'migrate', '--from', file], { env: pgEnv, dir });
    const fileRun = await converged(sim, [...base, '--state-file', file], ENV, dir);
    const pgRun = await converged(sim, base, pgEnv, dir);
    const [fileState, pgState] = [await stateMs(file, sim.url), await stateMs(url, sim.url)];
    const share = (part, whole) => `${((part / whole) * 100).toFixed(0)}%`;
    return {
      ok: migrated.code === 0 && fileRun.ok && pgRun.ok,
      text: `${accountSize.toLocaleString('en-US')} websites converged: file ${seconds(fileRun.wallMs)} s a run, its state ${fileState.toFixed(0)} ms (${share(fileState, fileRun.wallMs)}); PostgreSQL ${seconds(pgRun.wallMs)} s a run, its state ${pgState.toFixed(0)} ms (${share(pgState, pgRun.wallMs)})`,
    };
  } finally {
    await db.stop();
    await sim.close();
  }
}
