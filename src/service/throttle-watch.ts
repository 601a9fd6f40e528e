import { ServiceError } from './errors.js';
import { announcedWait } from './retry-policy.js';

// A 429 (or a 5xx) whose announced wait (Retry-After, else a 429's X-RateLimit-Reset) is longer than
// websites-sync waits (5 minutes) is not retried: a retry before the service allows it meets the same
// refusal. Nothing more is sent until that time has passed (every request fails at once, saying until
// when), so a run ends in seconds instead of waiting out a bounded pause before each of its requests,
// and a daemon's later resyncs start again once the time is over (a day at most: then one request asks
// again, and a service that still says to wait holds it again). The time is counted on two clocks, and
// requests go again as soon as either says it has passed: the machine's clock may be set back meanwhile
// (then the hold would last longer than asked), and a monotonic one stands still while it sleeps.

export class ThrottleWatch {
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #elapsed: () => number;
  /** When requests go again, on the machine's clock and on the monotonic one. */
  #until = 0;
  #untilElapsed = 0;
  /** What a request not sent says: shorter than the answer's own error, said once before it. */
  #short = '';

  constructor(
    maxWaitMs: number,
    now: () => number = Date.now,
    elapsed: () => number = () => performance.now(),
  ) {
    this.#maxWaitMs = maxWaitMs;
    this.#now = now;
    this.#elapsed = elapsed;
  }

  #began = new AbortController();

  /** Whether the service's announced wait lasts: nothing is sent meanwhile, no retry either. */
  get holding(): boolean {
    return this.#now() < this.#until && this.#elapsed() < this.#untilElapsed;
  }

  /** Aborted when a hold begins: a retry waiting out its pause then gives up (retry-policy.ts). */
  get holdBegins(): AbortSignal {
    return this.#began.signal;
  }

  /** Before a request is sent: while the service's announced wait lasts, nothing is. */
  beforeSending(method: string, path: string): void {
    if (!this.holding) return;
    throw new ServiceError(`${method} ${path}: not sent: ${this.#short}`, { method, path, status: 429 });
  }

  /** A 429's or 5xx's announced wait: what to add to its error when it is longer than websites-sync waits. */
  seen(status: number, headers: Parameters<typeof announcedWait>[1]): string | undefined {
    if (status !== 429 && status < 500) return undefined;
    const now = this.#now();
    const announced = announcedWait(status, headers, now);
    if (announced === undefined || announced.ms <= this.#maxWaitMs) return undefined;
    const { ms: waitMs, header } = announced;
    const until = waitMs < YEAR_MS ? `, until ${dateOf(now + waitMs)}` : '';
    const asked = `the service asked to wait ${spoken(waitMs)} (${header}${until}), longer than the ${spoken(this.#maxWaitMs)} websites-sync waits: not retried`;
    // Held already for longer (an answer to a request in flight when the first came): that hold stands.
    if (this.holding && now + waitMs < this.#until) {
      const end = this.#until - now < YEAR_MS ? ` until ${dateOf(this.#until)}` : ' for more than a year';
      return `${asked}, and nothing more is sent${end} (an earlier answer asked to wait longer); run again later`;
    }
    // A day at most: then one request asks again (a daemon held for a year would be held for good).
    const heldMs = Math.min(waitMs, HOLD_CAP_MS);
    this.#until = now + heldMs;
    this.#untilElapsed = this.#elapsed() + heldMs;
    this.#short = `the service asked to wait ${spoken(waitMs)}${until ? ` (${until.slice(2)})` : ''} in an earlier ${status}`;
    this.#began.abort();
    this.#began = new AbortController();
    const held = heldMs < waitMs ? `for ${spoken(heldMs)}, then websites-sync asks again` : 'until then';
    return `${asked}, and nothing more is sent ${held}; run again later`;
  }
}

const YEAR_MS = 365 * 86_400_000;
/** The longest hold: a longer wait is asked again, by one request, after it. */
const HOLD_CAP_MS = 86_400_000;

function dateOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function spoken(ms: number): string {
  if (ms >= YEAR_MS) return 'more than a year';
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  // Up to two hours, rounded up: a wait just past the cap is never said as the cap itself. Longer,
  // to the nearest unit: rounded up, two days and a second would be "3 days" beside its date.
  if (s < 7_200) return `${Math.ceil(s / 60)} minutes`;
  if (s < 172_800) return `${Math.round(s / 3_600)} hours`;
  return `${Math.round(s / 86_400)} days`;
}
