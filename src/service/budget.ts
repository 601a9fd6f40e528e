import type { AttemptHooks, AttemptInfo } from './attempt-types.js';
import type { PacerClock } from './pacing.js';
import { waitInQueue } from './stop.js';

// A share of the key's rate limit (`--rate-budget`). The service allows a number of requests per window
// to each key, and every client of the key (dashboards, scripts) draws on the same count. A resync that
// needs many pages spaces its attempts so that it never uses more than its share of any window:
// with a limit of 60 a minute and a budget of 50%, one attempt every 2 seconds, which leaves 30 a
// minute to the key's other users however long the resync takes. Runs that apply changes, and
// `--once`, use the whole limit (the pacer still keeps them under it).

const systemClock: PacerClock = {
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * How much longer than the service's window a window is counted, for the starts' travel time: 2% of
 * it (1.2 s of a minute), and at least a quarter of a second (short windows: tests, the benchmark).
 */
const MARGIN_SHARE = 0.02;
const MARGIN_MS = 250;

export interface RateBudgetOptions {
  /** The share in force at first, in (0, 1]. */
  fraction: number;
  /** The service's window (`--rate-window`): the limit is counted per window. */
  windowMs: number;
  clock?: PacerClock;
}

export class RateBudget {
  readonly #clock: PacerClock;
  readonly #windowMs: number;
  #fraction: number;
  /** X-RateLimit-Limit as the service last reported it. */
  #limit: number | undefined;
  /** Attempt start times of the last window, oldest first: the measured use, and the last start. */
  readonly #sent: number[] = [];
  /** Attempts waiting for their turn, in order. */
  readonly #waiting: Array<() => void> = [];
  #cancelTimer: (() => void) | undefined;

  constructor(options: RateBudgetOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#windowMs = options.windowMs;
    this.#fraction = options.fraction;
  }

  readonly hooks: AttemptHooks = {
    beforeAttempt: (signal) => this.#acquire(signal),
    afterAttempt: (info) => this.#observe(info),
  };

  /** The share of the limit attempts may use from now on (attempts already waiting included). */
  use(fraction: number): void {
    this.#fraction = fraction;
    this.#drain();
  }

  get fraction(): number {
    return this.#fraction;
  }

  get limit(): number | undefined {
    return this.#limit;
  }

  /** This client's attempts in the last window, as a share of the limit (0 before a limit is known). */
  used(): number {
    const since = this.#clock.now() - this.#windowMs;
    return this.#limit ? this.#sent.filter((at) => at > since).length / this.#limit : 0;
  }

  /** A wait gives up its place when `signal` aborts (the run is stopping). */
  #acquire(signal?: AbortSignal): Promise<void> | undefined {
    if (this.#waiting.length === 0 && this.#mayStart(this.#clock.now())) {
      this.#record(this.#clock.now());
      return undefined;
    }
    const wait = waitInQueue(this.#waiting, signal, () => this.#drain());
    this.#drain();
    return wait;
  }

  /**
   * Starts are spaced by the interval measured between actual starts, so however late a timer fires,
   * no window ever holds more than the budget's share; and the share counts the starts of the last window,
   * those sent before the first answer told the limit included (a run's first reads go side by side).
   */
  #mayStart(now: number): boolean {
    return now >= this.#earliest();
  }

  #earliest(): number {
    const last = this.#sent.at(-1);
    if (this.#fraction >= 1 || !this.#limit || last === undefined) return Number.NEGATIVE_INFINITY;
    const share = this.#limit * this.#fraction;
    const spaced = last + this.#windowMs / share;
    // The share-th start back leaves the window first: until then the window holds the whole share. A
    // start reaches the service later than it leaves, and not always by the same time (the first ones
    // open the connections; a loaded machine), so the window is counted a little longer than it is.
    const full = this.#sent.at(-Math.max(1, Math.floor(share)));
    const margin = Math.max(this.#windowMs * MARGIN_SHARE, MARGIN_MS);
    return full === undefined ? spaced : Math.max(spaced, full + this.#windowMs + margin);
  }

  #drain(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    while (this.#waiting.length > 0) {
      const now = this.#clock.now();
      if (!this.#mayStart(now)) {
        this.#cancelTimer = this.#clock.setTimer(() => this.#drain(), this.#earliest() - now);
        return;
      }
      this.#record(now);
      this.#waiting.shift()?.();
    }
  }

  #observe(info: AttemptInfo): void {
    const header = info.headers['x-ratelimit-limit'];
    const limit = Number(Array.isArray(header) ? header[0] : header);
    if (Number.isInteger(limit) && limit > 0) this.#limit = limit;
  }

  #record(at: number): void {
    this.#forget(at);
    this.#sent.push(at);
  }

  /** Keeps the last start even when it is older than the window: the next one is spaced from it. */
  #forget(now: number): void {
    let old = 0;
    while (old < this.#sent.length - 1 && (this.#sent[old] ?? now) <= now - this.#windowMs) old++;
    if (old > 0) this.#sent.splice(0, old);
  }
}
