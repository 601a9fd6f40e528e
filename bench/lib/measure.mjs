// Small pure helpers shared by the scenarios: statistics, bounds and the rate-limit window replay.
import { FixedWindowLimiter } from '../../dist/simulator/index.js';

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** List requests of a full listing: ⌈N/100⌉, and at least one (an empty account still answers a page). */
export const listRequests = (websites) => Math.max(1, Math.ceil(websites / 100));

/** The account's plan (`GET /api/v1/account`): read once per run (the daemon: once per resync). */
export const ACCOUNT_READS = 1;

/** The fewest requests of a run that lists the account: its pages and the account's plan. */
export const runRequests = (websites) => listRequests(websites) + ACCOUNT_READS;

/**
 * Sequential round trips of a listing at this concurrency: the first page alone (it tells how many
 * there are), then the rest `concurrency` at a time.
 */
export const listRounds = (websites, concurrency) =>
  1 + Math.ceil((listRequests(websites) - 1) / concurrency);

/** The kinds of request that only read: the list, a lookup, the account's plan, a website's traffic. */
const READS = new Set(['list', 'search', 'account', 'stats']);

/** The rows of the simulator's log that changed the account (creates, updates, deletes). */
export const writesOf = (log) => log.filter(([, , kind]) => !READS.has(kind));

/** Counts the log's rows by kind (`list`, `search`, `patch`, `post`, `delete`…) and by status. */
export function countLog(log) {
  const byKind = {};
  const byStatus = {};
  for (const [, status, kind] of log) {
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return { total: log.length, byKind, byStatus };
}

/**
 * Replays the simulator's own fixed-window limiter over the log's arrival times (it counts a request at
 * the time it logs it). Returns, per window, how many requests it accepted and refused.
 */
export function replayWindows(log, limit, windowMs) {
  const limiter = new FixedWindowLimiter({ limit, windowMs }, () => 0);
  const windows = [];
  for (const [at] of [...log].sort((a, b) => a[0] - b[0])) {
    const { allowed, headers } = limiter.hit('replay', at);
    if (allowed && headers['X-RateLimit-Remaining'] === String(limit - 1)) {
      windows.push({ start: at, accepted: 0, refused: 0 });
    }
    const current = windows.at(-1);
    if (current && allowed) current.accepted++;
    else if (current) current.refused++;
  }
  return windows;
}

export const seconds = (ms, digits = 2) => (ms / 1000).toFixed(digits);
export const megabytes = (kb) => (kb / 1024).toFixed(0);
