// The rows of issue 14 that measure its features: adoption with --adopt and, under the rate limit,
// the daemon's share of the key while a neighbour uses it too, and a manifest edit applied on a large
// account without a full listing. Time-scaled: the service's usual 60 requests a minute become 60 a
// second (or a window of 2 s), so a listing of 1,000 pages takes seconds, not minutes.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_KEY, manifestOf, PASSWORD_ENV, websites, writeConvergedState } from './fixtures.mjs';
import { runRequests, writesOf } from './measure.mjs';
import { runTool, spawnTool, startSim } from './processes.mjs';

const ENV = { WEBSITES_SYNC_API_KEY: API_KEY, ...PASSWORD_ENV };

/** Starts the daemon; `next(match)` resolves with the next finished run's log line that matches. */
function daemon(args) {
  const waiters = [];
  const runs = [];
  const child = spawnTool(['--interval', '1h', '--log-level', 'info', ...args], {
    env: ENV,
    onLine: (line) => {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.stage !== 'daemon' || typeof entry.result !== 'string') return;
      runs.push(entry);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async runs(count) {
      while (runs.length < count) {
        if (child.exitCode !== null) throw new Error('the daemon exited');
        await new Promise((wake) => waiters.push(wake));
      }
      return runs[count - 1];
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A manifest of the simulator's account and the state an earlier apply left: nothing to change. */
async function convergedAccount(dir, name, sim, count) {
  const sites = websites(count);
  const manifest = join(dir, `${name}.yaml`);
  const state = join(dir, `${name}-state.json`);
  writeFileSync(manifest, manifestOf(sites));
  await writeConvergedState(state, sim.url, sites);
  return { sites, manifest, args: ['--manifest', manifest, '--base-url', sim.url, '--state-file', state] };
}

/** Most requests of `log` rows inside any `windowMs` (sliding), and the windows' limit share. */
function busiest(rows, windowMs) {
  const times = rows.map(([at]) => at).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last] - times[first] >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/**
 * The daemon's first run reads a 3,000-website account (30 pages) at its default budget, 50% of a
 * 60-per-window limit, while a neighbour client of the same key sends 15 requests a window.
 */
export async function neighbourScenario(dir, { accountSize = 3_000, windowMs = 2_000 } = {}) {
  const limit = 60;
  const sim = await startSim({ websites: accountSize, rateLimit: { limit, windowMs } });
  try {
    const { args } = await convergedAccount(dir, 'neighbour', sim, accountSize);
    const tool = daemon([...args, '--rate-window', `${windowMs / 1000}s`]);
    let running = true;
    const neighbour = (async () => {
      while (running) {
        await fetch(`${sim.url}/api/v1/websites?page=1`, {
          headers: { authorization: `Bearer ${API_KEY}`, accept: 'application/json' },
        }).then((r) => r.arrayBuffer());
        // 15 a window: load, at its own pace, for as long as the resync lasts.
        await sleep(windowMs / 15);
      }
    })();
    const run = await tool.runs(1);
    running = false;
    await neighbour;
    await tool.stop();
    const log = await sim.log();
    const ours = log.filter((row) => row[3] === 'tool');
    const theirs = log.filter((row) => row[3] === 'other');
    const share = busiest(ours, windowMs) / limit;
    const refused = theirs.filter(([, status]) => status === 429).length;
    return {
      ok: run.result === 'success' && share <= 0.5 && refused === 0,
      text: `the resync (${ours.length} requests) used at most ${Math.round(share * 100)}% of a window; the neighbour sent ${theirs.length}, refused ${refused}`,
    };
  } finally {
    await sim.close();
  }
}

/**
 * A 100,000-website account, converged, under a 60-requests-per-second limit (60 a minute, 60× faster).
 * After the daemon's first run, one website's privacy is edited in the manifest: the time from the
 * edit to the service receiving the change, plus the requests it waited for at 60 a minute.
 */
export async function manifestEditScenario(dir, { accountSize = 100_000 } = {}) {
  const sim = await startSim({ websites: accountSize, rateLimit: { limit: 60, windowMs: 1_000 } });
  try {
    const { sites, manifest, args } = await convergedAccount(dir, 'edit', sim, accountSize);
    // The first listing at the whole limit: it is not what this row measures.
    const tool = daemon([...args, '--rate-window', '1s', '--rate-budget', '100']);
    await tool.runs(1);
    await sim.clear();
    const edited = sites.map((site, i) =>
      i === Math.floor(accountSize / 8) ? { ...site, privacy: site.privacy === 0 ? 1 : 0 } : site,
    );
    writeFileSync(`${manifest}.tmp`, manifestOf(edited));
    const editedAt = Date.now();
    renameSync(`${manifest}.tmp`, manifest);
    const run = await tool.runs(2);
    await tool.stop();
    const log = await sim.log();
    const patch = log.find(([, , kind]) => kind === 'patch');
    const before = patch ? log.filter(([at]) => at < patch[0]).length : log.length;
    const wallS = patch ? (patch[0] - editedAt) / 1000 : Number.POSITIVE_INFINITY;
    // At 60 requests a minute each request before the change costs up to a second of waiting.
    const scaledS = wallS + before;
    return {
      ok: run.result === 'success' && scaledS <= 60,
      text: `the change reached the service ${wallS.toFixed(2)} s after the edit, after ${before} request(s) (a full listing: ${Math.ceil(accountSize / 100).toLocaleString('en-US')}): ≤ ${scaledS.toFixed(1)} s at 60 requests/min`,
    };
  } finally {
    await sim.close();
  }
}

/**
 * Onboarding an existing account with `--adopt`: the account already matches the manifest, and there is
 * no state yet. Without --adopt every website's write-only fields would be sent once (N more requests).
 */
export async function adoptScenario(dir, { accountSize = 10_000 } = {}) {
  const sim = await startSim({ websites: accountSize });
  try {
    const manifest = join(dir, 'adopt.yaml');
    const state = join(dir, 'adopt-state.json');
    writeFileSync(manifest, manifestOf(websites(accountSize)));
    const args = ['--once', '--adopt', '--manifest', manifest, '--base-url', sim.url, '--state-file', state];
    const run = await runTool([...args, '--log-level', 'warn'], { env: ENV, dir });
    const requests = (await sim.log()).length;
    const minimum = runRequests(accountSize);
    await sim.clear();
    const next = await runTool(
      ['--once', '--manifest', manifest, '--base-url', sim.url, '--state-file', state],
      {
        env: ENV,
        dir,
      },
    );
    const writes = writesOf(await sim.log()).length;
    return {
      ok: run.code === 0 && requests === minimum && next.code === 0 && writes === 0,
      text: `${accountSize.toLocaleString('en-US')} websites adopted with ${requests} requests (⌈N/100⌉ + the account's plan = ${minimum}) in ${(run.wallMs / 1000).toFixed(2)} s; the next run wrote ${writes}`,
    };
  } finally {
    await sim.close();
  }
}
