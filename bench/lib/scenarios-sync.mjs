// The one-shot scenarios: the built CLI against the simulator, each in its own process.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_KEY, manifestOf, PASSWORD_ENV, websites, writeConvergedState } from './fixtures.mjs';
import { countLog, listRequests, listRounds, median, replayWindows, runRequests } from './measure.mjs';
import { cliCommand, instructionsOf, runTool, shebangFlags, startSim, wallOf } from './processes.mjs';
import { buildStartupFloor } from './startup-floor.mjs';

export const CONCURRENCY = 8;
export const LATENCY_MS = 50;
const ENV = { WEBSITES_SYNC_API_KEY: API_KEY, ...PASSWORD_ENV };

function syncArgs({ manifest, sim, state, dryRun }) {
  return [
    '--once',
    ...(dryRun ? ['--dry-run'] : []),
    '--output',
    'json',
    '--manifest',
    manifest,
    '--base-url',
    sim.url,
    '--state-file',
    state,
    '--concurrency',
    String(CONCURRENCY),
    '--log-level',
    'warn',
  ];
}

/** Runs the CLI once with an empty request log, and returns its measures with the log's counts. */
async function measuredRun(sim, args, dir, env = {}) {
  await sim.clear();
  const run = await runTool(args, { env: { ...ENV, ...env }, dir });
  const log = await sim.log();
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    throw new Error(`the tool exited ${run.code} without a JSON report:\n${run.stderr.slice(0, 2000)}`);
  }
  return { ...run, report, log, counts: countLog(log) };
}

function changed(report) {
  const { create, update, delete: remove } = report.summary;
  return create + update + remove;
}

/**
 * Process start-up: Node, every module a sync run loads, and a run's fixed costs: a dry run of one
 * website against an empty account without latency (one request). Median of five; CPU and RSS from
 * runs with the resource hook, wall time from plain runs interleaved with `node -e 0`, so the ratio
 * compares like with like under the same load. One run first, unmeasured: it fills Node's compile
 * cache, as the first run on a machine does.
 */
export async function measureStartup(dir) {
  const sim = await startSim({ websites: 0, latencyMs: 0 });
  try {
    const manifest = join(dir, 'startup.yaml');
    writeFileSync(manifest, manifestOf(websites(1)));
    const args = syncArgs({ manifest, sim, state: join(dir, 'startup-state.json'), dryRun: true });
    const env = { ...ENV };
    const floorCommand = (await buildStartupFloor(dir))(sim.url);
    const runs = [];
    const plain = [];
    const node = [];
    const floor = [];
    await wallOf(cliCommand(args), env);
    // Once before the timed runs (its compile cache, as for the CLI), and checked: a floor that failed
    // early would look fast.
    const { stdout } = await promisify(execFile)(process.execPath, floorCommand, {
      env: { ...process.env, ...env },
    });
    if (JSON.parse(stdout).account !== true) throw new Error(`the start-up floor read nothing: ${stdout}`);
    for (let i = 0; i < 5; i++) {
      runs.push(await measuredRun(sim, args, dir));
      node.push((await wallOf(['-e', '0'])).wallMs);
      plain.push((await wallOf(cliCommand(args), env)).wallMs);
      floor.push((await wallOf(floorCommand, env)).wallMs);
    }
    const wallMs = median(plain);
    const nodeMs = median(node);
    const floorMs = median(floor);
    const instructions = await startupInstructions(
      { node: ['-e', '0'], tool: cliCommand(args), floor: floorCommand },
      env,
    );
    return {
      instructions,
      name: 'Process start-up',
      wallMs,
      nodeMs,
      ratio: wallMs / nodeMs,
      floorMs,
      floorRatio: floorMs / nodeMs,
      cpuMs: median(runs.map((r) => r.cpuMs)),
      maxRssKb: median(runs.map((r) => r.maxRssKb)),
      requests: median(runs.map((r) => r.counts.total)),
      note: `wall times in ms, the tool: ${plain.map((ms) => ms.toFixed(0)).join(', ')}; \`node -e 0\`: ${node.map((ms) => ms.toFixed(0)).join(', ')}; the floor of its dependencies: ${floor.map((ms) => ms.toFixed(0)).join(', ')}`,
    };
  } finally {
    await sim.close();
  }
}

/**
 * The same three processes counted in instructions, median of three each (callgrind, when valgrind is
 * installed): information beside the wall times, without the machine's load in it. Ratios to
 * `node -e 0`.
 */
async function startupInstructions(commands, env) {
  const counts = { node: [], tool: [], floor: [] };
  for (let i = 0; i < 3; i++) {
    for (const [name, command] of Object.entries(commands)) {
      const count = await instructionsOf(command, env);
      if (count === undefined) return undefined;
      counts[name].push(count);
    }
  }
  const node = median(counts.node);
  return { node, ratio: median(counts.tool) / node, floorRatio: median(counts.floor) / node };
}

/** Rows 1 and 2: a converged plan of 10,000 websites, then an apply of 1,000 updates to them. */
export async function latencyScenarios(dir, startup, count = 10_000, updates = 1_000) {
  const sim = await startSim({ websites: count, latencyMs: LATENCY_MS });
  try {
    const sites = websites(count);
    const manifest = join(dir, 'converged.yaml');
    const state = join(dir, 'converged-state.json');
    writeFileSync(manifest, manifestOf(sites));
    await writeConvergedState(state, sim.url, sites);
    const planArgs = syncArgs({ manifest, sim, state, dryRun: true });
    const plans = [];
    for (let i = 0; i < 3; i++) plans.push(await measuredRun(sim, planArgs, dir));
    const plan = plans.sort((a, b) => a.wallMs - b.wallMs)[1];

    const every = Math.floor(count / updates);
    const edited = join(dir, 'edited.yaml');
    writeFileSync(edited, manifestOf(websites(count, (i) => i % every === 3 && i / every < updates)));
    const apply = await measuredRun(sim, syncArgs({ manifest: edited, sim, state, dryRun: false }), dir);
    const replan = await measuredRun(sim, syncArgs({ manifest: edited, sim, state, dryRun: true }), dir);

    const rounds = listRounds(count, CONCURRENCY);
    return [
      {
        id: 'plan-10k',
        count,
        name: `Converged plan, ${count.toLocaleString('en')} websites, ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}`,
        run: plan,
        requests: { made: plan.counts.total, min: runRequests(count), kinds: plan.counts.byKind },
        roundTrips: rounds,
        latencyMs: LATENCY_MS,
        boundMs: startup.wallMs + rounds * LATENCY_MS,
        checks: [{ label: 'plan is empty', ok: changed(plan.report) === 0 }],
        note: `median of 3 runs by wall time (${plans.map((p) => (p.wallMs / 1000).toFixed(2)).join(', ')} s)`,
      },
      {
        id: 'apply-1k',
        count,
        name: `Apply ${updates.toLocaleString('en')} updates on that account, same latency`,
        run: apply,
        requests: { made: apply.counts.total, min: runRequests(count) + updates, kinds: apply.counts.byKind },
        roundTrips: rounds + Math.ceil(updates / CONCURRENCY),
        latencyMs: LATENCY_MS,
        boundMs: startup.wallMs + (rounds + Math.ceil(updates / CONCURRENCY)) * LATENCY_MS,
        checks: [
          {
            label: `${updates} updates applied`,
            ok: apply.report.summary.update === updates && apply.code === 0,
          },
          { label: 'failed operations', ok: (apply.report.result?.failed ?? 0) === 0 },
          { label: 're-plan after the apply is empty', ok: changed(replan.report) === 0 },
        ],
        note: `re-plan right after: ${changed(replan.report)} changes, ${replan.counts.total} requests`,
      },
    ];
  } finally {
    await sim.close();
  }
}

/** Row 3: creates against a fixed-window rate limit. */
export async function rateLimitScenario(dir, startup, creates = 300, limit = 60, windowMs = 10_000) {
  const sim = await startSim({ websites: 0, latencyMs: LATENCY_MS, rateLimit: { limit, windowMs } });
  try {
    const manifest = join(dir, 'creates.yaml');
    writeFileSync(manifest, manifestOf(websites(creates)));
    const state = join(dir, 'creates-state.json');
    // The service does not announce its window; the tool is told it, as a user would (--rate-window).
    const args = [
      ...syncArgs({ manifest, sim, state, dryRun: false }),
      '--rate-window',
      `${windowMs / 1000}s`,
    ];
    const run = await measuredRun(sim, args, dir);
    const min = runRequests(0) + creates;
    const windows = replayWindows(run.log, limit, windowMs);
    const arrivals = run.log.map(([at]) => at);
    const spanMs = Math.max(...arrivals) - Math.min(...arrivals);
    // The fastest the limit allows: full windows back to back, the last one only partly used.
    const idealSpanMs = (Math.ceil(min / limit) - 1) * windowMs;
    const refused = run.counts.byStatus[429] ?? 0;
    return {
      id: 'rate-limited',
      name: `Rate-limited: ${creates} creates, ${limit} requests per ${windowMs / 1000} s, ${LATENCY_MS} ms latency`,
      run,
      requests: { made: run.counts.total - refused, min, refused, kinds: run.counts.byKind },
      roundTrips: undefined,
      boundMs: startup.wallMs + idealSpanMs + LATENCY_MS,
      rate: {
        used: spanMs > 0 ? idealSpanMs / spanMs : 0,
        windows: windows.length,
        maxRefusedPerWindow: Math.max(0, ...windows.map((w) => w.refused)),
        refused,
        failed: run.report.result?.failed ?? (run.code === 0 ? 0 : Number.NaN),
        created: run.report.result?.outcomes?.filter((o) => o.result === 'created').length ?? 0,
        spanMs,
        idealSpanMs,
      },
      checks: [],
      note: `${windows.length} windows; accepted per window: ${windows.map((w) => w.accepted).join(', ')}; 429s per window: ${windows.map((w) => w.refused).join(', ')}`,
    };
  } finally {
    await sim.close();
  }
}

// Both run under the CLI's own V8 options, as the tool runs: its shebang's (a small young generation)
// and those it sets once started (src/cli/v8-options.ts). Without them, garbage collection, and so the
// split, would be that of a default Node.

/** CPU by stage of the same plan, run stage by stage in a process of its own (bench/phases.mjs). */
async function phasesOf(config) {
  const script = fileURLToPath(new URL('../phases.mjs', import.meta.url));
  const args = [...shebangFlags(), script, JSON.stringify(config)];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    env: { ...process.env, ...ENV },
  });
  return JSON.parse(stdout).phases;
}

/** CPU of plain undici + JSON.parse of the same pages, in a process of its own (bench/floor.mjs). */
async function floorOf(url, pages) {
  const script = fileURLToPath(new URL('../floor.mjs', import.meta.url));
  const args = [...shebangFlags(), script, url, API_KEY, String(pages)];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return JSON.parse(stdout);
}

/** The simulator of rows 4 and 5; started early, it can seed while other scenarios run. */
export function startLargeSim(count = 100_000) {
  const started = performance.now();
  return startSim({ websites: count, latencyMs: 0 }).then((sim) => ({
    sim,
    count,
    readyAfterMs: performance.now() - started,
  }));
}

/** Rows 4 and 5: a converged plan of 100,000 websites without latency: CPU and peak RSS. */
export async function largeScenario(dir, startup, pending) {
  const { sim, count } = await pending;
  try {
    const sites = websites(count);
    const manifest = join(dir, 'large.yaml');
    const state = join(dir, 'large-state.json');
    writeFileSync(manifest, manifestOf(sites));
    await writeConvergedState(state, sim.url, sites);
    const args = syncArgs({ manifest, sim, state, dryRun: true });
    const run = await measuredRun(sim, args, dir);
    const phases = await phasesOf({ url: sim.url, manifest, state });
    const floor = await floorOf(sim.url, listRequests(count));
    return {
      phases,
      floorCpuMs: floor.cpuMs,
      id: 'plan-100k',
      count,
      name: `Converged plan, ${count.toLocaleString('en')} websites, no latency`,
      run,
      requests: { made: run.counts.total, min: runRequests(count), kinds: run.counts.byKind },
      roundTrips: 0,
      boundMs: undefined,
      cpuBeyondStartupMs: run.cpuMs - startup.cpuMs,
      checks: [{ label: 'plan is empty', ok: changed(run.report) === 0 }],
      note: `the simulator seeded its ${count.toLocaleString('en')} websites in ${(sim.seedMs / 1000).toFixed(1)} s, while the rows before ran (not counted)`,
    };
  } finally {
    await sim.close();
  }
}
