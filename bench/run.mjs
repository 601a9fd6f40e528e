// `npm run bench`: every scenario against the simulator, each process on its own, then the table on
// stdout and in docs/benchmarks.md. `--quick` runs small sizes (to try the harness; writes nothing);
// `--only=latency,rate,large,daemon,compare,features` picks scenarios (start-up always runs);
// `--only=features --row=ID` measures one feature row (e.g. `state-backends`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { explanations } from './lib/explain.mjs';
import { featureRows } from './lib/features.mjs';
import { machine, markdown, TARGETS, table } from './lib/report.mjs';
import { compareTable, featureTable } from './lib/report-compare.mjs';
import { COMPARE_LATENCY_MS, compareScenarios } from './lib/scenarios-compare.mjs';
import { daemonScenarios } from './lib/scenarios-daemon.mjs';
import {
  largeScenario,
  latencyScenarios,
  measureStartup,
  rateLimitScenario,
  startLargeSim,
} from './lib/scenarios-sync.mjs';

const { values } = parseArgs({
  options: { quick: { type: 'boolean' }, only: { type: 'string' }, row: { type: 'string' } },
});
const quick = values.quick ?? false;
const only = new Set((values.only ?? 'latency,rate,large,daemon,compare,features').split(','));
const output = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

const m = machine();
console.error(`bench: ${m.cpu}, ${m.cores} cores, Node ${m.node}, load ${m.load}${quick ? ' (quick)' : ''}`);
const dir = mkdtempSync(join(tmpdir(), 'websites-sync-bench-'));
const started = performance.now();
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const results = {};
const step = async (name, work) => {
  const at = performance.now();
  console.error(`bench: ${name}…`);
  const result = await work();
  console.error(`bench: ${name} done in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  return result;
};

let large;
try {
  results.startup = await step('start-up', () => measureStartup(dir));
  if (only.has('latency')) {
    results.latency = await step('10,000 websites, 50 ms', () =>
      quick ? latencyScenarios(dir, results.startup, 1000, 100) : latencyScenarios(dir, results.startup),
    );
  }
  // The large account's simulator seeds in its own process while the rate-limited and daemon rows,
  // which mostly wait, are measured.
  large = only.has('large') ? startLargeSim(quick ? 10_000 : 100_000) : undefined;
  large?.catch(() => {});
  if (only.has('rate')) {
    results.rateLimited = await step('rate-limited creates', () =>
      quick ? rateLimitScenario(dir, results.startup, 30, 10, 2000) : rateLimitScenario(dir, results.startup),
    );
  }
  if (only.has('daemon')) {
    results.daemon = await step('daemon', () =>
      daemonScenarios(dir, quick ? { idleMs: 5000, runs: 200, checkpoint: 40 } : {}),
    );
  }
  if (only.has('compare')) {
    results.compare = await step('websites-sync beside Terraform-style and naive scripts', () =>
      compareScenarios(dir, quick ? [1_000] : [1_000, 10_000]),
    );
  }
  if (only.has('features'))
    results.features = await step('rows of features being built', () => featureRows(dir, values.row));
  if (large) {
    results.large = await step('100,000 websites', () => largeScenario(dir, results.startup, large));
  }
} finally {
  await large?.then(({ sim }) => sim.close()).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}

const durationMs = performance.now() - started;
const loadAtEnd = machine().load;
console.log(table(results));
console.log(`\n${compareTable(results.compare, COMPARE_LATENCY_MS)}\n\n${featureTable(results.features)}`);
const missed = explanations(results, TARGETS);
if (missed.length > 0) console.log(`\nWhy targets were missed:\n${missed.join('\n')}`);
console.error(`bench: load average at the end ${loadAtEnd}`);
if (!quick && !values.only) {
  writeFileSync(output, markdown(results, { date, durationMs, m, loadAtEnd }));
  console.error(`bench: wrote ${output} (${(durationMs / 1000).toFixed(0)} s in all)`);
}
