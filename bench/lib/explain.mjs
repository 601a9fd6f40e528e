// Why a target is missed, from what this run measured and what profiling found (see docs/bench-readme.md).
// Printed only for the targets actually missed, so the explanations leave with the causes.
import { megabytes, seconds } from './measure.mjs';

export function explanations(results, targets) {
  const lines = [];
  const startup = results.startup;
  if (startup && startup.ratio > targets.startupFactor) {
    const own = startup.wallMs - startup.floorMs;
    lines.push(
      `- **${startup.name}**: ${startup.ratio.toFixed(1)}× \`node -e 0\`, over the ${targets.startupFactor}× target. The floor of its runtime dependencies alone (bench/startup-floor/: node:crypto, zod, pino and undici, bundled as the CLI is, one call each, and the same two requests) is ${startup.floorRatio.toFixed(1)}× (${seconds(startup.floorMs, 3)} s)${startup.floorRatio > targets.startupFactor ? ", itself over the target: no change to the tool's own code can meet it while these are the libraries a run loads" : ''}. The tool's own work (options, manifest, state, plan, output) adds ${seconds(own, 3)} s.${startup.instructions ? ` Counted in instructions, which the machine's load does not change: ${startup.instructions.ratio.toFixed(1)}× \`node -e 0\`, the floor ${startup.instructions.floorRatio.toFixed(1)}×.` : ''}`,
    );
  }
  for (const row of results.latency ?? []) {
    const factor = row.run.wallMs / row.boundMs;
    if (factor > targets.latencyFactor) {
      lines.push(
        `- **${row.name}**: ${factor.toFixed(2)}× the bound (${seconds(row.run.wallMs - row.boundMs)} s over it). ${timelineOf(row, startup)}`,
      );
    }
  }
  const large = results.large;
  // Not a target (see TARGETS.rateLimitPerMinute), but where the time goes is worth saying.
  if (large) {
    const phases = large.phases ?? {};
    const stages = Object.entries(phases)
      .map(([name, p]) => `${name} ${seconds(p.cpuMs)} s`)
      .join(', ');
    lines.push(
      `- **${large.name}**: ${seconds(large.cpuBeyondStartupMs)} s of CPU beyond start-up (${(large.cpuBeyondStartupMs / large.floorCpuMs).toFixed(1)}× the ${seconds(large.floorCpuMs)} s floor; information, not a target). By stage (bench/phases.mjs, under the CLI's V8 flags, garbage collection included): ${stages}. The listing is 1,000 requests whose ~25 MB of answers are decoded, parsed and checked; the manifest is 100,000 entries read, validated and resolved.`,
    );
  }
  if (large && large.run.maxRssKb / 1024 >= targets.peakRssMb) {
    lines.push(
      `- **Peak RSS of the ${large.count.toLocaleString('en')}-website plan**: ${megabytes(large.run.maxRssKb)} MB, ${megabytes(large.run.maxRssKb - targets.peakRssMb * 1024)} MB over. What the plan needs at once (desired state, state file, listing) is about 65 MB of live heap; the rest is garbage V8 has not collected yet and its young generation (${megabytes(large.run.youngGenerationKb)} MB in this run).`,
    );
  }
  const daemon = results.daemon;
  if (daemon) {
    const { idle, runs } = daemon;
    if (idle.corePercent >= targets.idleCorePercent) {
      lines.push(
        `- **${idle.name}**: ${idle.corePercent.toFixed(2)}% of a core. Causes seen so far: prom-client's event-loop delay histogram waking the process every 10 ms (its default resolution), and file events in the watched directories (the manifest's and its parent's) from other processes.`,
      );
    }
    const growth = runs.rss.afterAll / runs.rss.early - 1;
    if (growth > targets.rssGrowth) {
      const live = runs.liveHeap;
      lines.push(
        `- **${runs.name}**: RSS +${(growth * 100).toFixed(0)}% although the live heap after a full GC only goes from ${megabytes(live.early / 1024)} to ${megabytes(live.late / 1024)} MB: no leak. RSS follows V8's heap sizing: young-generation pages are touched for the first time and the young generation doubles after enough survivors, and old-generation garbage (heap in use ${megabytes(runs.rss.heapEarly / 1024)} → ${megabytes(runs.rss.heapAll / 1024)} MB) waits for a full collection that runs back to back never trigger.`,
      );
    }
  }
  return lines;
}

/**
 * Where a run's wall time went, from the simulator's request log placed on the run's clock: before its
 * first request (start-up, then the manifest and state), its requests, and after the last answer (the
 * plan, its output, exit). Arrivals are logged to the millisecond.
 */
function timelineOf(row, startup) {
  const { run } = row;
  const arrivals = run.log.map(([at]) => at);
  if (arrivals.length === 0 || run.startedAt === undefined) return '';
  const first = Math.min(...arrivals) - run.startedAt;
  const requests = Math.max(...arrivals) + row.latencyMs - Math.min(...arrivals);
  const after = run.endedAt - (Math.max(...arrivals) + row.latencyMs);
  const minimum = row.roundTrips * row.latencyMs;
  return `Measured on the simulator's log: the first request left ${seconds(first)} s after the spawn (a whole run of one website, the start-up row, takes ${seconds(startup.wallMs)} s; most of the difference is the manifest of ${row.count.toLocaleString('en')} entries), the requests took ${seconds(requests)} s (${row.roundTrips} rounds × ${row.latencyMs} ms = ${seconds(minimum)} s; the rest is the CPU each answer takes, the tool's and the simulator's, on the same cores), and the plan, its output and exit ${seconds(Math.max(0, after))} s after the last answer.`;
}
