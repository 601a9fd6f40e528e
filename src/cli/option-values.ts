// The values of options, checked one by one: each error names where the value came from (the option,
// or the environment variable that set it) and what is allowed.
import { statSync } from 'node:fs';
import {
  isLoopbackHost,
  notRegular,
  notRegularMessage,
  shownUrl,
  TRAFFIC_GUARD_MODES,
  TRAFFIC_WINDOW_MAX_DAYS,
  type TrafficGuardMode,
} from '../model/index.js';
import { parseDuration } from './duration.js';
import { UsageError } from './errors.js';

/** Zero is allowed (deletes at once, as without a delay), unlike the other durations. */
export function parseDeleteDelay(text: string | undefined, name = '--delete-delay'): number | undefined {
  if (text === undefined || text === '') return undefined;
  return parseDuration(text, name, '--delete-delay');
}

export function parseConcurrency(text: string | undefined, name = '--concurrency'): number {
  if (text === undefined || text === '') return 4;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    throw new UsageError(`${name}: "${text}" is not allowed; use a whole number from 1 to 64`);
  }
  return n;
}

/** Events describe the account: sent over https, or plain http to this machine only (as the base URL). */
export function checkNotifyUrl(text: string | undefined, name = '--notify-url'): string | undefined {
  if (text === undefined) return undefined;
  const shown = shownUrl(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${name}: "${shown}" is not a URL; use e.g. https://hooks.example.com/...`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return url.href;
  throw new UsageError(`${name}: "${shown}" must be https:// (plain http:// only to this machine)`);
}

/** `--rate-budget PERCENT`: 1–100, with or without the `%`. */
export function parseRateBudget(text: string | undefined, name = '--rate-budget'): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const percent = match ? Number(match[1]) : Number.NaN;
  if (!(percent >= 1 && percent <= 100)) {
    throw new UsageError(
      `${name}: "${text}" is not a share of the rate limit; use a percentage from 1 to 100`,
    );
  }
  return percent / 100;
}

/**
 * A path option (`--state-file`, `--out`, `--api-key-file`…) must name a file: a directory there would
 * surface later as a bare EISDIR, or after the run did its work. A file the tool writes must be a regular
 * one: a device (/dev/null), a FIFO or a socket would be replaced by the state's atomic rename (as root,
 * /dev/null itself), block the write, or swallow what is written. A missing file is the command's concern.
 */
export function refuseUnusablePath(path: string, name: string, use: 'read' | 'write'): void {
  let what: string | undefined;
  try {
    what = notRegular(statSync(path));
  } catch {
    return;
  }
  if (what === 'a directory')
    throw new UsageError(`${name}: ${path} is a directory; give the path of a file`);
  if (what !== undefined && use === 'write') {
    throw new UsageError(`${name}: ${path} ${notRegularMessage(what)}; give the path of a regular file`);
  }
}

/** `--traffic-window`: days of traffic read before a delete; 0 turns the guard off. */
export function parseTrafficWindow(text: string, name = '--traffic-window'): number {
  const days = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(days >= 0 && days <= TRAFFIC_WINDOW_MAX_DAYS)) {
    throw new UsageError(
      `${name}: "${text}" is not allowed; use a whole number of days from 0 (off) to ${TRAFFIC_WINDOW_MAX_DAYS}`,
    );
  }
  return days;
}

export function parseTrafficGuard(text: string, name = '--traffic-guard'): TrafficGuardMode {
  const mode = TRAFFIC_GUARD_MODES.find((m) => m === text);
  if (mode === undefined) throw new UsageError(`${name}: "${text}" is not a mode; use lenient or strict`);
  return mode;
}
