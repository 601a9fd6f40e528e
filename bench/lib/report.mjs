// Turns the scenarios' measures into target verdicts and the markdown of docs/benchmarks.md.
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { explanations } from './explain.mjs';
import { megabytes, runRequests, seconds } from './measure.mjs';
import { compareTable, cpuInformation, featureTable, issueTargets } from './report-compare.mjs';
import { COMPARE_LATENCY_MS } from './scenarios-compare.mjs';

export const TARGETS = {
  latencyFactor: 1.25,
  rateUsed: 0.9,
  /**
   * The 100,000-website plan's CPU beyond start-up is shown beside the floor of plain undici +
   * JSON.parse as information, not a target: at the service's rate limit (60 requests a minute) its
   * listing takes 17 minutes, and that CPU is a fraction of a percent of it.
   */
  rateLimitPerMinute: 60,
  peakRssMb: 256,
  idleCorePercent: 1,
  rssGrowth: 0.1,
  startupFactor: 3,
};

const verdict = (ok, text) => `${ok ? '✅' : '❌'} ${text}`;
const signed = (fraction) => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;

function requestsVerdict({ made, min }) {
  return verdict(
    made === min,
    made === min ? 'requests = minimum' : `${made - min} requests over the minimum`,
  );
}

function latencyVerdict(row) {
  const factor = row.run.wallMs / row.boundMs;
  return verdict(
    factor <= TARGETS.latencyFactor,
    `wall ${factor.toFixed(2)}× bound (≤ ${TARGETS.latencyFactor}×)`,
  );
}

const checksOf = (row) => (row.checks ?? []).filter((c) => !c.ok).map((c) => verdict(false, c.label));

function requestsCell({ made, min, refused, kinds }) {
  const extra = refused ? ` + ${refused} × 429` : '';
  return `${made.toLocaleString('en')}${extra} (${min.toLocaleString('en')})${kindsNote(kinds)}`;
}

/** The guards' reads, named in the cell: the account's plan per run, a website's traffic per delete. */
function kindsNote(kinds) {
  if (!kinds) return '';
  const parts = [
    kinds.account ? `${kinds.account.toLocaleString('en')} account` : '',
    kinds.stats ? `${kinds.stats.toLocaleString('en')} stats` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `<br>incl. ${parts.join(', ')}` : '';
}

/** One table row per measured line: [scenario, requests, wall, cpu, rss, targets]. */
export function rows(results) {
  const out = [];
  const { startup } = results;
  if (startup) {
    out.push([
      'Process start-up: dry run of 1 website on an empty account, no latency (median of 5)',
      `${startup.requests} (${runRequests(0)})`,
      `${seconds(startup.wallMs, 3)} s (\`node -e 0\`: ${seconds(startup.nodeMs, 3)} s; its dependencies' floor: ${seconds(startup.floorMs, 3)} s)`,
      `${seconds(startup.cpuMs)} s`,
      `${megabytes(startup.maxRssKb)} MB`,
      [
        verdict(
          startup.ratio <= TARGETS.startupFactor,
          `${startup.ratio.toFixed(1)}× \`node -e 0\` (≤ ${TARGETS.startupFactor}×)`,
        ),
        `ℹ️ floor ${startup.floorRatio.toFixed(1)}× \`node -e 0\`: crypto, zod, pino and undici loaded and the same two requests, none of the tool's own work`,
        startup.instructions
          ? `ℹ️ in instructions (callgrind, median of 3): ${startup.instructions.ratio.toFixed(1)}× \`node -e 0\`, floor ${startup.instructions.floorRatio.toFixed(1)}×`
          : 'ℹ️ in instructions: not counted (valgrind is not installed)',
        'ℹ️ the "start-up" in the bounds below',
      ].join('<br>'),
    ]);
  }
  for (const row of results.latency ?? []) {
    out.push([
      row.name,
      requestsCell(row.requests),
      `${seconds(row.run.wallMs)} s (${seconds(row.boundMs)} s = ${seconds(startup.wallMs)} + ${row.roundTrips} × 50 ms)`,
      `${seconds(row.run.cpuMs)} s`,
      `${megabytes(row.run.maxRssKb)} MB`,
      [requestsVerdict(row.requests), latencyVerdict(row), ...checksOf(row)].join('<br>'),
    ]);
  }
  const rate = results.rateLimited;
  if (rate) {
    const r = rate.rate;
    out.push([
      rate.name,
      requestsCell(rate.requests),
      `${seconds(rate.run.wallMs)} s (${seconds(rate.boundMs)} s = ${seconds(startup.wallMs)} + ${seconds(r.idealSpanMs, 0)} s of windows + 50 ms)`,
      `${seconds(rate.run.cpuMs)} s`,
      `${megabytes(rate.run.maxRssKb)} MB`,
      [
        requestsVerdict(rate.requests),
        verdict(r.used >= TARGETS.rateUsed, `${(r.used * 100).toFixed(0)}% of the allowed rate used (≥ 90%)`),
        verdict(r.failed === 0, `${Number.isNaN(r.failed) ? 'unknown' : r.failed} failed operations (0)`),
        verdict(r.maxRefusedPerWindow <= 1, `at most ${r.maxRefusedPerWindow} × 429 per window (≤ 1)`),
      ].join('<br>'),
    ]);
  }
  const large = results.large;
  if (large) {
    out.push([
      large.name,
      requestsCell(large.requests),
      `${seconds(large.run.wallMs)} s (no latency)`,
      `${seconds(large.run.cpuMs)} s total, ${seconds(large.cpuBeyondStartupMs)} s beyond start-up`,
      `${megabytes(large.run.maxRssKb)} MB`,
      [requestsVerdict(large.requests), `ℹ️ ${cpuInformation(large, TARGETS)}`, ...checksOf(large)].join(
        '<br>',
      ),
    ]);
    const rssMb = large.run.maxRssKb / 1024;
    out.push([
      `Peak RSS of that ${large.count.toLocaleString('en')}-website plan`,
      '—',
      '—',
      '—',
      `${rssMb.toFixed(0)} MB`,
      verdict(rssMb < TARGETS.peakRssMb, `peak RSS ${rssMb.toFixed(0)} MB (< ${TARGETS.peakRssMb} MB)`),
    ]);
  }
  const daemon = results.daemon;
  if (daemon) {
    const { idle, runs } = daemon;
    out.push([
      idle.name,
      requestsCell(idle.requests),
      `${seconds(idle.wallMs, 0)} s`,
      `${seconds(idle.cpuMs, 3)} s`,
      '—',
      [
        verdict(
          idle.corePercent < TARGETS.idleCorePercent,
          `${idle.corePercent.toFixed(3)}% of a core (< 1%)`,
        ),
        requestsVerdict(idle.requests),
      ].join('<br>'),
    ]);
    const growth = runs.rss.afterAll / runs.rss.early - 1;
    const live = runs.liveHeap;
    const liveGrowth = live.late / live.early - 1;
    out.push([
      runs.name,
      requestsCell(runs.requests),
      `${seconds(runs.wallMs)} s (${(runs.wallMs / runs.count).toFixed(1)} ms per run)`,
      `${seconds(runs.cpuMs)} s`,
      `${(runs.rss.early / 2 ** 20).toFixed(0)} MB after ${runs.checkpoint.toLocaleString('en')} → ${(runs.rss.afterAll / 2 ** 20).toFixed(0)} MB after ${runs.count.toLocaleString('en')}`,
      [
        verdict(
          growth <= TARGETS.rssGrowth,
          `RSS ${signed(growth)} from run ${runs.checkpoint.toLocaleString('en')} to run ${runs.count.toLocaleString('en')} (≤ +10%)`,
        ),
        `ℹ️ live heap after a full GC ${(live.early / 2 ** 20).toFixed(1)} → ${(live.late / 2 ** 20).toFixed(1)} MB (${signed(liveGrowth)}): ${Math.abs(liveGrowth) <= TARGETS.rssGrowth ? 'no leak' : 'growing'}`,
        requestsVerdict(runs.requests),
        ...checksOf(runs),
      ].join('<br>'),
    ]);
  }
  return out;
}

export function table(results) {
  const header = [
    'Scenario',
    'Requests (minimum)',
    'Wall time (round-trip bound)',
    'CPU',
    'Peak RSS',
    'Targets',
  ];
  const lines = [header, header.map(() => '---'), ...rows(results)];
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function machine() {
  const cores = cpus();
  return {
    cpu: cores[0]?.model ?? 'unknown',
    cores: cores.length,
    memoryGb: (totalmem() / 2 ** 30).toFixed(0),
    os: `${platform()} ${release()}`,
    node: process.version,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

/** The whole of docs/benchmarks.md. */
export function markdown(results, { date, durationMs, m, loadAtEnd }) {
  const notes = [results.startup, ...(results.latency ?? []), results.rateLimited, results.large]
    .filter(Boolean)
    .map((row) => `- **${row.name}**: ${row.note}.`);
  if (results.daemon) {
    const { runs } = results.daemon;
    const samples = runs.samples.map((s) => `${s.run}: ${s.rssMb.toFixed(0)}`).join(', ');
    notes.push(
      `- **${runs.name}**: RSS in MB by run: ${samples}. V8 heap in use (garbage included) ${(runs.rss.heapEarly / 2 ** 20).toFixed(1)} MB after ${runs.checkpoint} runs, ${(runs.rss.heapAll / 2 ** 20).toFixed(1)} MB after ${runs.count}.`,
    );
  }
  const missed = explanations(results, TARGETS);
  return `# Benchmarks

Generated by \`npm run bench\` (bench/run.mjs) on ${date}; the whole run took ${seconds(durationMs, 0)} s.
What each row measures and how its bound is computed: [explanation/benchmarks.md](explanation/benchmarks.md).

Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}; load average (1, 5, 15 min) at start ${m.load}, at the end ${loadAtEnd}. The machine is shared: a load average above 0 is other work competing for its cores, and it lengthens every wall time below.

## Issue 14's targets

${issueTargets(results, TARGETS)}

## Every row

${table(results)}

## websites-sync beside a Terraform-style refresh and a naive script

Each tool keeps the same account in sync, on a freshly seeded simulator, in this run. "10% changed":
every 10th website's e-mail setting differs on the account. Time at 60 requests/min: how long those
requests take at the service's usual limit.

${compareTable(results.compare, COMPARE_LATENCY_MS)}

## Rows of features being built (measured once on main)

${featureTable(results.features)}

Notes:

${notes.join('\n')}
${missed.length > 0 ? `\nWhere the time goes, and the targets missed:\n\n${missed.join('\n')}\n` : ''}`;
}
