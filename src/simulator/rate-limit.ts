// Laravel's throttle middleware: a fixed window per key that starts with the key's first hit, counted
// in whole seconds (its cache stores `time() + decay`), so the window begins at the second of the first
// hit and Retry-After / X-RateLimit-Reset are integer seconds.

export interface RateLimitOptions {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Window {
  startedAt: number;
  hits: number;
}

export class FixedWindowLimiter {
  readonly options: RateLimitOptions;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(options: RateLimitOptions, now: () => number) {
    if (!(Number.isInteger(options.limit) && options.limit >= 0)) {
      throw new RangeError(`rate limit must be a non-negative integer, got ${options.limit}`);
    }
    if (!(options.windowMs > 0))
      throw new RangeError(`rate limit window must be positive, got ${options.windowMs}`);
    this.options = options;
    this.#now = now;
  }

  /** `now` defaults to the clock; the server passes the time it logged the request at, so the log replays. */
  hit(key: string, now = this.#now()): RateDecision {
    let window = this.#windows.get(key);
    if (!window || now >= window.startedAt + this.options.windowMs) {
      window = { startedAt: Math.floor(now / 1000) * 1000, hits: 0 };
      this.#windows.set(key, window);
    }
    const limit = String(this.options.limit);
    // A refused attempt does not count, as in Laravel: the window is not extended by retries.
    if (window.hits >= this.options.limit) {
      const resetAtSeconds = Math.ceil((window.startedAt + this.options.windowMs) / 1000);
      const retryAfter = Math.max(1, resetAtSeconds - Math.floor(now / 1000));
      return {
        allowed: false,
        headers: {
          'X-RateLimit-Limit': limit,
          'X-RateLimit-Remaining': '0',
          'Retry-After': String(retryAfter),
          'X-RateLimit-Reset': String(resetAtSeconds),
        },
      };
    }
    window.hits++;
    return {
      allowed: true,
      headers: {
        'X-RateLimit-Limit': limit,
        'X-RateLimit-Remaining': String(this.options.limit - window.hits),
      },
    };
  }
}
