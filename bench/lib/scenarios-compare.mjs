// The comparison rows: websites-sync, a Terraform-style refresh and a naive script keep the same
// account in sync, each on a freshly seeded simulator (an apply changes the account), in this run.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PARALLELISM } from './baselines.mjs';
import { API_KEY, manifestOf, PASSWORD_ENV, websites, writeConvergedState } from './fixtures.mjs';
import { ACCOUNT_READS, countLog, listRequests } from './measure.mjs';
import { runTool, startSim } from './processes.mjs';

/** Short: the scripts make up to 10,000 sequential-ish requests; the request count is what matters. */
export const COMPARE_LATENCY_MS = 10;
/** The service's usual limit: 60 requests a minute per key. */
export const REAL_LIMIT_PER_MINUTE = 60;
const DRIFT_EVERY = 10;
const BASELINE = fileURLToPath(new URL('../baseline.mjs', import.meta.url));

async function runWebsitesSync(sim, dir, count) {
  const sites = websites(count);
  const manifest = join(dir, `compare-${count}.yaml`);
  const state = join(dir, `compare-${count}-${Date.now()}.json`);
  writeFileSync(manifest, manifestOf(sites));
  await writeConvergedState(state, sim.url, sites);
  const args = ['--once', '--output', 'json', '--manifest', manifest, '--base-url', sim.url];
  args.push('--state-file', state, '--concurrency', String(PARALLELISM), '--log-level', 'warn');
  const run = await runTool(args, { env: { WEBSITES_SYNC_API_KEY: API_KEY, ...PASSWORD_ENV }, dir });
  if (run.code !== 0) throw new Error(`websites-sync exited ${run.code}: ${run.stderr.slice(0, 1000)}`);
  const { summary } = JSON.parse(run.stdout);
  return { wallMs: run.wallMs, cpuMs: run.cpuMs, changed: summary.update + summary.create };
}

async function runBaseline(kind, sim, count) {
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [
    BASELINE,
    JSON.stringify({ kind, url: sim.url, count }),
  ]);
  return { wallMs: performance.now() - started, ...JSON.parse(stdout) };
}

const TOOLS = [
  { id: 'websites-sync', label: 'websites-sync', run: (sim, dir, count) => runWebsitesSync(sim, dir, count) },
  {
    id: 'terraform',
    label: `Terraform-style refresh (GET per website, ${PARALLELISM} at a time)`,
    run: (sim, _dir, count) => runBaseline('terraform', sim, count),
  },
  {
    id: 'naive',
    label: `naive script (list, then PATCH every website, ${PARALLELISM} at a time)`,
    run: (sim, _dir, count) => runBaseline('naive', sim, count),
  },
];

/** One account (size, converged or 10% drifted) kept in sync by each tool in turn. */
async function compareOne(dir, count, drifted) {
  const expected = drifted ? Math.ceil(count / DRIFT_EVERY) : 0;
  const tools = [];
  for (const tool of TOOLS) {
    const sim = await startSim({
      websites: count,
      latencyMs: COMPARE_LATENCY_MS,
      driftEvery: drifted ? DRIFT_EVERY : undefined,
    });
    try {
      await sim.clear();
      const result = await tool.run(sim, dir, count);
      const counts = countLog(await sim.log());
      tools.push({ id: tool.id, label: tool.label, ...result, requests: counts.total });
    } finally {
      await sim.close();
    }
  }
  const own = tools[0];
  return {
    count,
    drifted,
    expected,
    name: `${count.toLocaleString('en')} websites, ${drifted ? '10% changed' : 'converged'}`,
    // What websites-sync needs: the listing, the account's plan (its guard), the changes.
    minimum: listRequests(count) + ACCOUNT_READS + expected,
    tools: tools.map((t) => ({
      ...t,
      atLimitMs: (t.requests / REAL_LIMIT_PER_MINUTE) * 60_000,
      ratio: t.requests / own.requests,
    })),
  };
}

/** Every comparison: 1,000 and 10,000 websites, converged and 10% changed. */
export async function compareScenarios(dir, sizes = [1_000, 10_000]) {
  const out = [];
  for (const count of sizes) {
    for (const drifted of [false, true]) out.push(await compareOne(dir, count, drifted));
  }
  return out;
}
