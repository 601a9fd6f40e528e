import type { Dispatcher, RetryHandler } from 'undici';
import type { RetryInfo } from './attempt-types.js';
import { pauseUntil } from './stop.js';

// undici's retry interceptor does the mechanics (re-dispatch, body replay, Retry-After parsing is ours);
// this policy decides *whether* and *when*. We replace its default for two reasons: the default has no
// jitter (concurrent requests that failed together retry together), and it caps Retry-After at
// `maxTimeout`, which would make us retry a throttled request before the service allows it.

export interface RetryTuning {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Base of the exponential backoff. */
  minDelayMs: number;
  /** Cap of the exponential backoff (not of Retry-After). */
  maxDelayMs: number;
  /** Upper bound on a Retry-After we are willing to honour. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryTuning = {
  maxRetries: 5,
  minDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 5 * 60_000,
};

/** Statuses worth another attempt: the service was overloaded, throttled us, or failed transiently. */
export const RETRY_STATUS_CODES = [429, 500, 502, 503, 504];

/**
 * The statuses the service answers and the client tells apart: success (200, 201), a refused key (401,
 * 403), not found (404), a validation failure or plan limit (422), and the ones retried. /metrics has
 * each at 0 from the start, so a rate or an alert on any of them works before it first happens.
 */
export const KNOWN_STATUS_CODES = [200, 201, 401, 403, 404, 422, ...RETRY_STATUS_CODES];

/**
 * Network failures once the request went out: the connection broke or stalled, so the service may have
 * acted on it and the answer is lost (attempts.ts notes them: a DELETE's retry then meets its own 404).
 */
export const AFTER_SENDING_CODES = [
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  // Our own: an attempt whose whole body did not arrive within --timeout (attempts.ts).
  'WS_BODY_DEADLINE',
  'UND_ERR_BODY_TIMEOUT',
];

/** Network failures and timeouts (undici's codes) that leave an idempotent request safe to repeat. */
export const RETRY_ERROR_CODES = [
  // Before the request went out: no connection.
  'ECONNREFUSED',
  'ENOTFOUND',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  ...AFTER_SENDING_CODES,
];

/**
 * Idempotent methods: repeating them after any retryable failure is harmless. A store is not among
 * them: a lost answer may hide a committed create (apply looks the domain up instead).
 */
export const RETRY_METHODS: Dispatcher.HttpMethod[] = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'];

/**
 * The one failure after which a store is repeated: the service's throttle answers 429 before the
 * request reaches its controller, so nothing was created.
 */
const NOT_APPLIED_STATUS = 429;

/** Milliseconds to wait before retry number `attempt` (1-based). Pure, so it is tested directly. */
export function retryDelayMs(
  attempt: number,
  retryAfterHeader: string | undefined,
  tuning: RetryTuning,
  random: () => number = Math.random,
): number {
  return backoffMs(attempt, parseRetryAfter(retryAfterHeader), tuning, random);
}

/** The same, from the wait the service announced (announcedWait), if it announced one. */
function backoffMs(
  attempt: number,
  retryAfter: number | undefined,
  tuning: RetryTuning,
  random: () => number = Math.random,
): number {
  if (retryAfter !== undefined) {
    // Honour the service's wait in full, plus a little spread so a burst does not return as one.
    return Math.min(retryAfter, tuning.maxRetryAfterMs) + Math.floor(random() * 250);
  }
  const ceiling = Math.min(tuning.maxDelayMs, tuning.minDelayMs * 2 ** (attempt - 1));
  // "Equal jitter": never less than half the backoff, so retries still back off under contention.
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const WEEKDAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** The three forms of an HTTP date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's, asctime's. */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|${WEEKDAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|(${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}))$`,
);

/**
 * Milliseconds to wait from a Retry-After header: whole seconds or an HTTP date (RFC 9110 §10.2.3).
 * Anything else (`-5`, `1.5`, `1e3`, `0x10`, `Mon 5`) is no Retry-After, and the backoff applies:
 * JavaScript reads those as numbers, and `Date.parse` reads `-5`, `1.5` and `Mon 5` as dates in 2001,
 * which would retry at once, as fast as the answers come.
 */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = httpDate(text);
  return date === undefined ? undefined : Math.max(0, date - nowMs);
}

/** An HTTP date's milliseconds since the epoch, or undefined for any other text. */
function httpDate(text: string): number | undefined {
  const form = HTTP_DATE.exec(text);
  if (!form) return undefined;
  // asctime's form names no zone: it is GMT too (Date.parse would read it as local time).
  const ms = Date.parse(form[1] === undefined ? text : `${text} GMT`);
  return Number.isNaN(ms) ? undefined : ms;
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * How long the service said to wait: its Retry-After (on any answer), else, on a 429, the end of the
 * rate-limit window (X-RateLimit-Reset, epoch seconds). The retry policy, the pacer and ThrottleWatch
 * read it alike: a window announced a day away is a day away, whichever header says so. A time of day
 * (an HTTP-date Retry-After, X-RateLimit-Reset) is the service's clock: it is measured from the
 * answer's own Date when it has one, so a clock of this machine hours off reads it right too.
 */
export function announcedWait(
  status: number | undefined,
  headers: Headers | undefined,
  nowMs = Date.now(),
): { ms: number; header: string } | undefined {
  const serverNow = dateOf(firstOf(headers?.date)) ?? nowMs;
  const retryAfter = parseRetryAfter(firstOf(headers?.['retry-after']), serverNow);
  if (retryAfter !== undefined) return { ms: retryAfter, header: 'Retry-After' };
  const reset = firstOf(headers?.['x-ratelimit-reset']);
  if (status !== 429 || reset === undefined || !/^\s*\d+\s*$/.test(reset)) return undefined;
  return { ms: Math.max(0, Number(reset) * 1000 - serverNow), header: 'X-RateLimit-Reset' };
}

/** An answer's Date header (whole seconds), if it is an HTTP date (as a Retry-After's). */
function dateOf(value: string | undefined): number | undefined {
  return value === undefined ? undefined : httpDate(value.trim());
}

function firstOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

interface RetryableError extends Error {
  statusCode?: number;
  code?: string;
  headers?: Headers;
}

/** A long throttle's hold (ThrottleWatch): while it lasts, nothing is sent, retries included. */
export interface ThrottleHold {
  readonly holding: boolean;
  /** Aborted when a hold begins. */
  readonly holdBegins: AbortSignal;
}

/**
 * `stopping`: the run's stop. A retry's pause (up to `maxRetryAfterMs`, five minutes) ends at once when
 * it aborts; the retry is then held back by the stop gate, so the request fails as not sent. `throttle`:
 * when a long throttle holds (or begins during the pause), the retry is not sent either: the request
 * fails at once with the answer it had.
 */
export function createRetryPolicy(
  tuning: RetryTuning,
  onRetry?: (info: RetryInfo) => void,
  stopping?: AbortSignal,
  throttle?: ThrottleHold,
): RetryHandler.RetryCallback {
  return (err, { state, opts }, callback) => {
    const { statusCode, code, headers } = err as RetryableError;
    const options = opts.retryOptions ?? {};
    const retryableCode = !code || code === 'UND_ERR_REQ_RETRY' || options.errorCodes?.includes(code);
    const retryableMethod =
      (options.methods?.includes(opts.method) ?? false) ||
      (opts.method === 'POST' && statusCode === NOT_APPLIED_STATUS);
    const retryableStatus = statusCode === undefined || (options.statusCodes?.includes(statusCode) ?? false);
    const retryable =
      retryableCode && retryableMethod && retryableStatus && state.counter <= tuning.maxRetries;
    if (!retryable || throttle?.holding) {
      callback(err);
      return;
    }
    const announced = announcedWait(statusCode, headers)?.ms;
    // A retry before the service allows it meets the same refusal (throttle-watch.ts says so instead).
    if ((announced ?? 0) > tuning.maxRetryAfterMs) {
      callback(err);
      return;
    }
    const delay = backoffMs(state.counter, announced, tuning);
    onRetry?.({
      method: opts.method,
      path: opts.path,
      reason: statusCode === undefined ? (code ?? err.message) : `HTTP ${statusCode}`,
      retry: state.counter,
      delayMs: delay,
    });
    // The interceptor cancels this timer when the request is aborted; a stop, or a hold, ends it at once.
    const ended = throttle
      ? AbortSignal.any([throttle.holdBegins, ...(stopping ? [stopping] : [])])
      : stopping;
    return pauseUntil(() => (throttle?.holding ? callback(err) : callback(null)), delay, ended);
  };
}
