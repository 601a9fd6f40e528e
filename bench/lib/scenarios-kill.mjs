// Kill during a long apply, then rerun: the CLI creates many websites (each with a write-only field),
// is killed (SIGKILL) half-way, then runs again with the same state file. Whatever the rerun sends for
// websites the first run had already created is resent; the target allows the last second's operations.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_KEY, manifestOf, PASSWORD_ENV, websites } from './fixtures.mjs';
import { countLog } from './measure.mjs';
import { runTool, spawnTool, startSim } from './processes.mjs';

const ENV = { WEBSITES_SYNC_API_KEY: API_KEY, ...PASSWORD_ENV };

export async function killScenario(dir, { creates = 600, killAfter = 300, latencyMs = 50 } = {}) {
  const sim = await startSim({ websites: 0, latencyMs });
  try {
    // Every website has exclude_params, which the service never returns: only the state remembers it.
    const sites = websites(creates).map((site) => ({ ...site, exclude_params: ['utm_source'] }));
    const manifest = join(dir, 'kill.yaml');
    const state = join(dir, 'kill-state.json');
    writeFileSync(manifest, manifestOf(sites));
    const args = ['--once', '--manifest', manifest, '--base-url', sim.url, '--state-file', state];
    args.push('--concurrency', '8', '--log-level', 'warn');

    const child = spawnTool(args, { env: ENV, onLine: () => {} });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let log = await sim.log();
    while (countLog(log).byKind.post === undefined || countLog(log).byKind.post < killAfter) {
      if (child.exitCode !== null) throw new Error('the first run ended before it could be killed');
      await sleep(20);
      log = await sim.log();
    }
    child.kill('SIGKILL');
    const killedAt = Date.now();
    await exited;
    // Creates in flight at the kill still complete on the service (after its latency): wait them out.
    await sleep(latencyMs * 4);
    const first = await sim.log();
    const created = first.filter(
      ([, status, kind]) => kind === 'post' && status >= 200 && status < 300,
    ).length;
    const lastSecond = first.filter(([at, , kind]) => kind === 'post' && at >= killedAt - 1000).length;

    await sim.clear();
    const rerun = await runTool(args, { env: ENV, dir });
    const counts = countLog(await sim.log());
    const resent = counts.byKind.patch ?? 0;
    return {
      code: rerun.code,
      created,
      lastSecond,
      resent,
      rerunCreates: counts.byKind.post ?? 0,
      expectedCreates: creates - created,
      ok: resent <= lastSecond && rerun.code === 0 && counts.byKind.post === creates - created,
    };
  } finally {
    await sim.close();
  }
}
