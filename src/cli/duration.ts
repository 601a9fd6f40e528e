import { DELETE_DELAY_RANGE, formatBound, parseDurationMs } from '../model/index.js';
import { UsageError } from './errors.js';

/** The longest delay a Node.js timer holds; a longer one overflows and fires at once, again and again. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DurationBounds {
  minMs: number;
  maxMs: number;
}

/** Each duration option's sane range: a run every millisecond, or a timer that overflows, is refused. */
export const DURATION_BOUNDS = {
  '--interval': { minMs: 1_000, maxMs: 7 * 86_400_000 },
  '--timeout': { minMs: 100, maxMs: 600_000 },
  '--rate-window': { minMs: 1_000, maxMs: 86_400_000 },
  '--leader-poll': { minMs: 200, maxMs: 300_000 },
  // The manifest's delete_delay has the same range (the manifest checks it).
  '--delete-delay': DELETE_DELAY_RANGE,
} as const satisfies Record<string, DurationBounds>;

/**
 * "500ms", "30s", "5m", "1h30m", "7d" → milliseconds, within the option's bounds. `name` is what an
 * error blames: the option, or the environment variable the value came from.
 */
export function parseDuration(
  text: string,
  name: string,
  option: keyof typeof DURATION_BOUNDS = name as keyof typeof DURATION_BOUNDS,
): number {
  const ms = parseDurationMs(text);
  if (ms === undefined) {
    throw new UsageError(`${name}: "${text}" is not a duration; use e.g. 30s, 5m, 1h30m or 500ms`);
  }
  const { minMs, maxMs } = DURATION_BOUNDS[option];
  if (ms < minMs || ms > maxMs) {
    throw new UsageError(
      `${name}: "${text}" is out of range; use a duration from ${formatBound(minMs)} to ${formatBound(maxMs)}`,
    );
  }
  return ms;
}
