// Seeded fault injection for the simulator. Every API request draws the same number of random values
// in the same order whatever the outcome, so one seed always yields the same sequence of faults for
// the same sequence of requests.

/** What a request suffers instead of (or, for `reset-after-commit`, after) normal handling. */
export type FaultKind =
  | 'reset'
  | 'reset-after-commit'
  | 'hang'
  | 'error'
  | 'html'
  /** A 422 whose message quotes the request's password (as some validation messages do). */
  | 'echo-422'
  /** A 500 debug page that prints the request's headers, Authorization included. */
  | 'echo-html'
  | 'login-redirect'
  | 'throttle'
  /**
   * A hostile paginator: a list request is answered with a full page of websites never listed
   * before, saying it is page 1 of 3 (`current_page: 1`, `total` three pages) and linking a next
   * page, whatever page was asked for. Other requests are handled normally.
   */
  | 'stuck-page'
  /**
   * The request takes effect as usual, then is answered with `givenBody` under its usual status: a
   * service (or a proxy) that answers with values of unexpected types (`"exclude_ips": {"toString": 1}`).
   */
  | 'given-body';

/**
 * How `/account` or `/stats/{id}` misbehaves: missing (an older version), a 500, a 200 without the data,
 * or a 503 with `Retry-After: 0` on every try (a gateway in front of it that is down for now).
 */
export type EndpointFault =
  | 404
  | 500
  | 503
  | 'unreadable'
  /** A 200 with this JSON body: a version, or a proxy, that shapes (or fills) the answer otherwise. */
  | { body: unknown };

export interface FaultOptions {
  /** PRNG seed (default 1). Setting it again restarts the sequence. */
  seed?: number;
  /** Fraction answered 5xx (a status from `errorStatuses`) before the request takes effect. */
  errorRate?: number;
  /** Statuses an `error` fault picks from, uniformly (default [500, 502, 503]). */
  errorStatuses?: number[];
  /** Fraction whose connection is reset before the request takes effect. */
  resetRate?: number;
  /** Fraction of successful stores, updates and deletes committed, then answered with a reset connection. */
  resetAfterCommitRate?: number;
  /** Fraction answered 200 or 500 with an HTML page instead of JSON, before the request takes effect. */
  htmlRate?: number;
  /** Fraction redirected (302) to the HTML login page, before the request takes effect. */
  loginRedirectRate?: number;
  /** Fraction answered 429 without counting against the rate limit. */
  throttleRate?: number;
  /** `Retry-After` of a `throttle` fault, in seconds (default 1). */
  throttleRetryAfterSeconds?: number;
  /** Fraction accepted and never answered. */
  hangRate?: number;
  /** How long a hung request is held before its socket is destroyed (default: until `close()`). */
  hangMs?: number;
  /** Delay added before answering every API request. */
  latencyMs?: number;
  /** Extra delay, uniform in [0, latencyJitterMs), added to `latencyMs`. */
  latencyJitterMs?: number;
  /** The body a `given-body` fault answers (JSON). */
  givenBody?: unknown;
  /** Every list request suffers `stuck-page` (unless a script or a random draw decides otherwise). */
  stuckPaging?: boolean;
  /**
   * Outcomes for the next API requests, in order, before any random draw decides: `['error', 'none']`
   * makes the next request fail and the one after succeed (unless a random fault hits it).
   */
  script?: Array<FaultKind | 'none'>;
  /**
   * The service is down: every API request (websites, `/account` and `/stats` alike) is answered 503 with
   * a gateway's HTML page before it takes effect, draws nothing and leaves the script alone, until it is
   * set back to false.
   */
  down?: boolean;
  /** Every `/api/v1/account` request (after authentication) answers so; undefined: normally. */
  accountFault?: EndpointFault | undefined;
  /** Every `/api/v1/stats/{id}` request of an existing website answers so; undefined: normally. */
  statsFault?: EndpointFault | undefined;
  /**
   * The key is regenerated (as in the service's web UI, which ends the old key at once) right after
   * this many API requests were accepted with it (counted from when this was set): the next ones answer
   * 401. It rotates once; set it again for another rotation.
   */
  rotateKeyAfter?: number | undefined;
  /** The key it is regenerated to (a test then hands it to the client); default: the key + `-rotated`. */
  rotatedKey?: string | undefined;
}

export interface FaultDecision {
  kind: FaultKind | 'none';
  delayMs: number;
  /** For `error`: the status to answer. */
  errorStatus: number;
  /** For `error`: an HTML body (a proxy's page) rather than a JSON one. */
  errorAsHtml: boolean;
  /** For `html`: 200 (a captive or maintenance page) or 500. */
  htmlStatus: 200 | 500;
  /** For `hang`: when to give up holding the socket; undefined holds it until close. */
  hangMs: number | undefined;
  /** For `throttle`. */
  retryAfterSeconds: number;
  /** For `stuck-page`: how many stuck pages were answered before this one (new websites each time). */
  stuckPages: number;
  /** For `given-body`: the body to answer. */
  givenBody: unknown;
}

/** The guards' reads, whose faults are their own (see FaultInjector.quiet). */
const GUARD_PATH = /^\/api\/v1\/(account|stats)(\/|$)/;

const RATE_KEYS = [
  'hangRate',
  'resetRate',
  'loginRedirectRate',
  'throttleRate',
  'errorRate',
  'htmlRate',
  'resetAfterCommitRate',
] as const;

/** The fault each rate produces; earlier entries win when several draws hit. */
const KIND_OF_RATE: Record<(typeof RATE_KEYS)[number], FaultKind> = {
  hangRate: 'hang',
  resetRate: 'reset',
  loginRedirectRate: 'login-redirect',
  throttleRate: 'throttle',
  errorRate: 'error',
  htmlRate: 'html',
  resetAfterCommitRate: 'reset-after-commit',
};

/** mulberry32: tiny, fast and good enough to make fault sequences reproducible. */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function checkOptions(options: FaultOptions): void {
  for (const key of RATE_KEYS) {
    const rate = options[key];
    if (rate !== undefined && !(rate >= 0 && rate <= 1)) {
      throw new RangeError(`fault option ${key} must be between 0 and 1, got ${rate}`);
    }
  }
  for (const key of ['latencyMs', 'latencyJitterMs', 'hangMs', 'throttleRetryAfterSeconds'] as const) {
    const value = options[key];
    if (value !== undefined && !(value >= 0 && Number.isFinite(value))) {
      throw new RangeError(`fault option ${key} must be a non-negative number, got ${value}`);
    }
  }
  if (options.errorStatuses?.length === 0) throw new RangeError('fault option errorStatuses is empty');
  // A key travels in a header: the client could not send another one.
  if (options.rotatedKey !== undefined && !/^[\x21-\x7e]+$/.test(options.rotatedKey)) {
    throw new RangeError('fault option rotatedKey must be printable ASCII without spaces');
  }
}

export class FaultInjector {
  #options: FaultOptions = {};
  #random: () => number = createPrng(1);
  #script: Array<FaultKind | 'none'> = [];
  #stuckPages = 0;
  #accepted = 0;

  constructor(options: FaultOptions = {}) {
    this.set(options);
  }

  get options(): Readonly<FaultOptions> {
    return { ...this.#options, script: [...this.#script] };
  }

  /** Merges `partial` into the current options; `seed` restarts the PRNG, `script` replaces the queue. */
  set(partial: Partial<FaultOptions>): void {
    const next = { ...this.#options, ...partial };
    checkOptions(next);
    this.#options = next;
    if ('seed' in partial) this.#random = createPrng(partial.seed ?? 1);
    if (partial.script !== undefined) this.#script = [...partial.script];
    if ('rotateKeyAfter' in partial) this.#accepted = 0;
  }

  /**
   * Called for each API request the key was accepted for, with the key: the new key once, at the
   * `rotateKeyAfter`-th (regenerated as in the service's web UI, which ends the old one at once).
   */
  keyRotationDue(key: string): string | undefined {
    const after = this.#options.rotateKeyAfter;
    if (after === undefined || ++this.#accepted !== after) return undefined;
    return this.#options.rotatedKey ?? `${key}-rotated`;
  }

  /** The decision for a request to this path (see `quiet`). */
  decideFor(path: string): FaultDecision {
    if (this.#options.down) return { ...this.quiet(), kind: 'error', errorStatus: 503, errorAsHtml: true };
    return GUARD_PATH.test(path) ? this.quiet() : this.decide();
  }

  /**
   * The decision for `/account` and `/stats/{id}`: only the latency. The random and scripted faults are
   * the websites API's (a scripted sequence stays aligned with its requests whatever the guards read);
   * those two endpoints have their own (`accountFault`, `statsFault`).
   */
  quiet(): FaultDecision {
    return {
      kind: 'none',
      delayMs: this.#options.latencyMs ?? 0,
      errorStatus: 500,
      errorAsHtml: false,
      htmlStatus: 500,
      hangMs: undefined,
      retryAfterSeconds: 1,
      stuckPages: this.#stuckPages,
      givenBody: undefined,
    };
  }

  decide(): FaultDecision {
    const o = this.#options;
    // All draws happen before any branch so that the sequence never depends on outcomes.
    const hits = RATE_KEYS.map((key) => this.#random() < (o[key] ?? 0));
    const statusDraw = this.#random();
    const htmlBodyDraw = this.#random();
    const htmlStatusDraw = this.#random();
    const jitterDraw = this.#random();

    const statuses = o.errorStatuses ?? [500, 502, 503];
    const drawn = RATE_KEYS.find((_, i) => hits[i]);
    const scripted = this.#script.shift();
    const kind = scripted ?? (drawn ? KIND_OF_RATE[drawn] : o.stuckPaging ? 'stuck-page' : 'none');
    return {
      kind,
      delayMs: (o.latencyMs ?? 0) + Math.floor(jitterDraw * (o.latencyJitterMs ?? 0)),
      errorStatus: statuses[Math.floor(statusDraw * statuses.length)] ?? 500,
      errorAsHtml: htmlBodyDraw < 0.5,
      htmlStatus: htmlStatusDraw < 0.5 ? 200 : 500,
      hangMs: o.hangMs,
      retryAfterSeconds: Math.max(1, Math.ceil(o.throttleRetryAfterSeconds ?? 1)),
      stuckPages: kind === 'stuck-page' ? this.#stuckPages++ : this.#stuckPages,
      givenBody: o.givenBody,
    };
  }
}
