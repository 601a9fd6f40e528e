import type { AttemptHooks, AttemptInfo, RateWindowInfo } from './attempt-types.js';
import { announcedWait } from './retry-policy.js';
import { waitInQueue } from './stop.js';

// Client-side pacing from the service's rate-limit headers, so a large run slows down before the limit
// instead of bouncing off it with 429s. The service (Laravel's throttle) counts requests in a fixed
// window that starts with the first request; every answer carries X-RateLimit-Limit/-Remaining, and only
// a 429 says when the window ends (Retry-After, X-RateLimit-Reset). So:
//  - at most `remaining` attempts are in flight: each of them may be counted against what is left;
//  - with nothing left, new attempts wait until the window ends: known from a 429, or predicted from
//    the window length learned from an earlier 429; with neither, one attempt goes alone to find out.

export interface PacerClock {
  now(): number;
  /** Calls `callback` after `ms`; returns a function that cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

export interface PacerOptions {
  clock?: PacerClock;
  /**
   * The service's window, which it does not announce (`--rate-window`, default 1 minute as its usual
   * 60 a minute): known from the start, no 429 is needed to learn it. A 429 still corrects it. Without
   * it, the window is learned from the first 429.
   */
  windowMs?: number;
  /** The longest pause honoured (a bounded Retry-After, as in the retry policy). */
  maxPauseMs?: number;
  /** Told when the answers show another window than `windowMs` (once per value). */
  onWindow?: (info: RateWindowInfo) => void;
}

const systemClock: PacerClock = {
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * The service counts whole seconds: its window starts at the second of its first hit, which our first
 * answer may see one second later. Predictions err late by that second, never early.
 */
const SAFETY_MS = 1_000;
/** A 429 that says nothing about when to come back. */
const UNKNOWN_PAUSE_MS = 1_000;

export class Pacer {
  readonly #clock: PacerClock;
  readonly #maxPauseMs: number;
  #limit: number | undefined;
  /** Lowest remaining count the service reported in the current window; undefined: no limit seen. */
  #remaining: number | undefined;
  /** When the current window ends, when known or predicted. */
  #resetAt: number | undefined;
  /** Window length learned from a 429 (its reset time minus the window's first answer). */
  #windowMs: number | undefined;
  /** When the first answer of the current window arrived (never before the window really began). */
  #windowStart: number | undefined;
  /** Set when we believe a new window began and its first answer is still to come. */
  #awaitingFirstAnswer = false;
  #inFlight = 0;
  /** Attempts in flight when `#remaining` was last read: their answers may have been counted earlier. */
  #olderInFlight = 0;
  readonly #waiters: Array<() => void> = [];
  #cancelTimer: (() => void) | undefined;
  readonly #configuredWindowMs: number | undefined;
  readonly #onWindow: PacerOptions['onWindow'];
  #reportedWindowMs: number | undefined;

  constructor(options: PacerOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxPauseMs = options.maxPauseMs ?? 5 * 60_000;
    this.#windowMs = options.windowMs;
    this.#configuredWindowMs = options.windowMs;
    this.#onWindow = options.onWindow;
  }

  /** A window seen to differ from the configured one by more than the service's whole-second rounding. */
  #saw(observedMs: number): void {
    const configuredMs = this.#configuredWindowMs;
    if (configuredMs === undefined || Math.abs(observedMs - configuredMs) <= SAFETY_MS) return;
    if (this.#reportedWindowMs === observedMs) return;
    this.#reportedWindowMs = observedMs;
    this.#onWindow?.({ configuredMs, observedMs });
  }

  readonly hooks: AttemptHooks = {
    beforeAttempt: (signal) => this.acquire(signal),
    afterAttempt: (info) => this.release(info),
  };

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Undefined when the attempt may go now (no extra tick), else a promise resolved when it may, or
   * rejected when `signal` aborts first (its place is given up, and a timer nobody needs is cancelled).
   */
  acquire(signal?: AbortSignal): Promise<void> | undefined {
    if (this.#waiters.length === 0 && this.#mayStart()) {
      this.#inFlight++;
      return undefined;
    }
    const wait = waitInQueue(this.#waiters, signal, () => this.#pump());
    this.#pump();
    return wait;
  }

  /** Every acquired attempt ends here exactly once, answered or failed. */
  release(info: AttemptInfo): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#observe(info);
    this.#pump();
  }

  #mayStart(): boolean {
    const now = this.#clock.now();
    if (this.#resetAt !== undefined && now >= this.#resetAt) this.#startWindow();
    if (this.#remaining === undefined) return true;
    if (this.#inFlight < this.#remaining) return true;
    // Nothing left, nothing in flight to tell us more, and no idea when the window ends: probe alone.
    return this.#remaining === 0 && this.#inFlight === 0 && this.#resetAt === undefined;
  }

  #startWindow(): void {
    this.#remaining = this.#limit;
    this.#resetAt = undefined;
    // The old start is kept until an answer confirms the new window: a 429 instead means the reset was
    // predicted too early, and the old start then gives the true window length.
    this.#awaitingFirstAnswer = true;
  }

  #observe(info: AttemptInfo): void {
    const now = this.#clock.now();
    const rate = readRateHeaders(info.headers, now);
    // An attempt sent before the last reading may have been counted before it (answers overtake each
    // other): a higher count from it proves nothing. From any later attempt, it means a new window.
    const mayBeOlder = this.#olderInFlight > 0;
    this.#olderInFlight = Math.max(0, this.#olderInFlight - 1);
    if (rate.limit !== undefined) this.#limit = rate.limit;
    if (info.status === 429) {
      this.#throttled(now, rate.retryAfterMs);
      return;
    }
    if (rate.remaining === undefined) return;
    const previous = this.#remaining;
    const newWindow = previous === undefined || (rate.remaining > previous && !mayBeOlder);
    if (newWindow || rate.remaining < (previous ?? 0)) {
      this.#remaining = rate.remaining;
      this.#olderInFlight = this.#inFlight;
    }
    if (newWindow) this.#resetAt = undefined;
    // The count climbed back sooner than the configured window: the service's window is shorter.
    if (newWindow && previous !== undefined && this.#windowStart !== undefined) {
      const atMostMs = Math.ceil((now - this.#windowStart) / 1000) * 1000;
      if (this.#configuredWindowMs !== undefined && atMostMs < this.#configuredWindowMs) this.#saw(atMostMs);
    }
    if (newWindow || this.#awaitingFirstAnswer || this.#windowStart === undefined) {
      this.#windowStart = Math.floor(now / 1000) * 1000;
    }
    this.#awaitingFirstAnswer = false;
    if (this.#remaining === 0 && this.#resetAt === undefined) this.#resetAt = this.#predictedReset(now);
  }

  #throttled(now: number, retryAfterMs: number | undefined): void {
    this.#remaining = 0;
    this.#olderInFlight = this.#inFlight;
    const announced = retryAfterMs === undefined ? undefined : now + retryAfterMs;
    const resetAt = Math.min(
      announced ?? this.#predictedReset(now) ?? now + UNKNOWN_PAUSE_MS,
      now + this.#maxPauseMs,
    );
    this.#resetAt = resetAt;
    // The window's length, from its first answer to the end the service announced. A wait longer than
    // the pause is not learned: cut to the bound, it names no window the service has (ThrottleWatch
    // holds every request until then anyway).
    if (announced !== undefined && announced === resetAt && this.#windowStart !== undefined) {
      this.#windowMs = Math.ceil((resetAt - this.#windowStart) / 1000) * 1000;
      this.#saw(this.#windowMs);
    }
  }

  /** When the current window should end, from the length learned earlier; never beyond a bounded pause. */
  #predictedReset(now: number): number | undefined {
    if (this.#windowMs === undefined || this.#windowStart === undefined) return undefined;
    return Math.min(this.#windowStart + this.#windowMs + SAFETY_MS, now + this.#maxPauseMs);
  }

  #pump(): void {
    while (this.#waiters.length > 0 && this.#mayStart()) {
      this.#inFlight++;
      this.#waiters.shift()?.();
    }
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    // Otherwise an answer of an attempt in flight calls #pump again.
    if (this.#waiters.length > 0 && this.#resetAt !== undefined) {
      const delay = Math.max(0, this.#resetAt - this.#clock.now());
      this.#cancelTimer = this.#clock.setTimer(() => {
        this.#cancelTimer = undefined;
        this.#pump();
      }, delay);
    }
  }
}

export interface RateHeaders {
  limit: number | undefined;
  remaining: number | undefined;
  /** From Retry-After, else X-RateLimit-Reset (the epoch second the window ends). */
  retryAfterMs: number | undefined;
}

export function readRateHeaders(
  headers: AttemptInfo['headers'],
  nowMs: number,
  status: number | undefined = 429,
): RateHeaders {
  return {
    limit: intHeader(headers['x-ratelimit-limit']),
    remaining: intHeader(headers['x-ratelimit-remaining']),
    retryAfterMs: announcedWait(status, headers, nowMs)?.ms,
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function intHeader(value: string | string[] | undefined): number | undefined {
  const text = first(value);
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}
