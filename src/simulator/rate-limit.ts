// Laravel's throttle middleware: a fixed window per key that starts with the key's first hit.

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

  hit(key: string): RateDecision {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now >= window.startedAt + this.options.windowMs) {
      window = { startedAt: now, hits: 0 };
      this.#windows.set(key, window);
    }
    const limit = String(this.options.limit);
    // A refused attempt does not count, as in Laravel: the window is not extended by retries.
    if (window.hits >= this.options.limit) {
      const resetAt = window.startedAt + this.options.windowMs;
      const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
      return {
        allowed: false,
        headers: {
          'X-RateLimit-Limit': limit,
          'X-RateLimit-Remaining': '0',
          'Retry-After': String(retryAfter),
          'X-RateLimit-Reset': String(Math.ceil(now / 1000) + retryAfter),
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
