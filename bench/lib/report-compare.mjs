// The comparison table: websites-sync beside a Terraform-style refresh and a naive script, and the
// rows of features that may not be in the build yet (⏸️ while not measured).
import { seconds } from './measure.mjs';

const verdict = (ok, text) => `${ok ? '✅' : '❌'} ${text}`;

/** "2 h 48 min", "17 min", "10 s": how long the requests take at the service's real limit. */
export function duration(ms) {
  const minutes = ms / 60_000;
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  if (minutes < 60) return `${Math.round(minutes)} min`;
  return `${Math.floor(minutes / 60)} h ${Math.round(minutes % 60)} min`;
}

function verdictOf(account, tool) {
  if (tool.id !== 'websites-sync') {
    return `${tool.ratio.toFixed(1)}× websites-sync's requests${tool.changed === account.expected || tool.id === 'naive' ? '' : ` ❌ changed ${tool.changed}, expected ${account.expected}`}`;
  }
  const others = account.tools.filter((t) => t !== tool);
  return [
    verdict(
      tool.requests === account.minimum,
      tool.requests === account.minimum
        ? 'requests = minimum'
        : `${tool.requests - account.minimum} requests over the minimum`,
    ),
    verdict(
      others.every((t) => t.requests > tool.requests),
      'fewer requests than both others',
    ),
    verdict(tool.changed === account.expected, `${tool.changed} websites changed (${account.expected})`),
  ].join('<br>');
}

/** The comparison rows as a markdown table (empty when the comparison did not run). */
export function compareTable(compare, latencyMs) {
  if (!compare?.length) return '';
  const header = [
    'Account',
    'Tool',
    'Requests (minimum)',
    `Wall time (${latencyMs} ms latency)`,
    'CPU',
    'Time at 60 requests/min',
    'Verdict / ratio',
  ];
  const lines = [header, header.map(() => '---')];
  for (const account of compare) {
    for (const tool of account.tools) {
      lines.push([
        account.name,
        tool.label,
        `${tool.requests.toLocaleString('en')} (${account.minimum.toLocaleString('en')})`,
        `${seconds(tool.wallMs)} s`,
        `${seconds(tool.cpuMs)} s`,
        duration(tool.atLimitMs),
        verdictOf(account, tool),
      ]);
    }
  }
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The feature rows: target and status. */
export function featureTable(features) {
  if (!features?.length) return '';
  const lines = [
    ['Scenario', 'Target', 'Result'],
    ['---', '---', '---'],
  ];
  for (const row of features) {
    const mark = row.ok === undefined ? '⏸️' : row.ok ? '✅' : '❌';
    lines.push([row.name, row.target, `${mark} ${row.status}`]);
  }
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

const status = (ok) => (ok ? '✅ met' : '❌ missed');

/** The large plan's CPU beside the floor and beside the listing's time at the rate limit: information. */
export function cpuInformation(large, targets) {
  const listingMs = (large.requests.min / targets.rateLimitPerMinute) * 60_000;
  return `${seconds(large.cpuBeyondStartupMs)} s CPU beyond start-up: ${(large.cpuBeyondStartupMs / large.floorCpuMs).toFixed(1)}× the floor of plain undici + JSON.parse of the same pages (${seconds(large.floorCpuMs)} s), ${((large.cpuBeyondStartupMs / listingMs) * 100).toFixed(2)}% of the ${Math.round(listingMs / 60_000)} min its listing takes at ${targets.rateLimitPerMinute} requests a minute (information, not a target)`;
}

/** Issue 14's targets, each met, missed or not measured in this run. */
export function issueTargets(results, targets) {
  const lines = [];
  const { startup, large, daemon, compare, features } = results;
  const own = (compare ?? []).map((a) => [a, a.tools.find((t) => t.id === 'websites-sync')]);
  const rows = [...(results.latency ?? []), results.rateLimited, large, daemon?.idle, daemon?.runs];
  const minimal =
    rows.filter(Boolean).every((r) => r.requests.made === r.requests.min) &&
    own.every(([a, t]) => t.requests === a.minimum);
  lines.push(`- Requests: still the minimum in every row: ${status(minimal)}.`);
  if (startup) {
    lines.push(
      `- Start-up of a one-website dry run ≤ ${targets.startupFactor}× \`node -e 0\`: ${status(startup.ratio <= targets.startupFactor)} (${startup.ratio.toFixed(1)}×; the floor of its runtime dependencies alone: ${startup.floorRatio.toFixed(1)}×).`,
    );
  }
  if (large) {
    const mb = large.run.maxRssKb / 1024;
    lines.push(
      `- ${large.count.toLocaleString('en')}-website converged plan, peak RSS < ${targets.peakRssMb} MB: ${status(mb < targets.peakRssMb)} (${mb.toFixed(0)} MB). CPU: ${cpuInformation(large, targets)}.`,
    );
  }
  if (daemon) {
    const { runs } = daemon;
    const growth = runs.rss.afterAll / runs.rss.early - 1;
    lines.push(
      `- Daemon RSS flat (≤ +10%) from run ${runs.checkpoint.toLocaleString('en')} to run ${runs.count.toLocaleString('en')}: ${status(growth <= targets.rssGrowth)} (${(growth * 100).toFixed(1)}%).`,
    );
  }
  for (const row of features ?? []) {
    const mark = row.ok === undefined ? '' : row.ok ? '✅ ' : '❌ ';
    lines.push(`- ${row.name} (${row.target}): ${mark}${row.status}.`);
  }
  return lines.join('\n');
}
