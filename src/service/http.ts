import { Agent, type Dispatcher, EnvHttpProxyAgent, interceptors } from 'undici';
import { isLoopbackHost } from '../model/index.js';
import { readErrorBody } from './answers.js';
import type { AttemptHooks } from './attempt-types.js';
import { type AnswerWatch, attemptInterceptor, composeHooks, type Wire } from './attempts.js';
import type { RateBudget } from './budget.js';
import { AuthError, excerptOf, type Redact, ServiceError } from './errors.js';
import { type KeyRefusal, KeyWatch } from './key-watch.js';
import { Pacer } from './pacing.js';
import { type EnvProxy, proxyFromEnv, throughProxy } from './proxy.js';
import { headerOf, type RawAnswer, redirectError } from './redirects.js';
import {
  createRetryPolicy,
  DEFAULT_RETRY,
  RETRY_ERROR_CODES,
  RETRY_METHODS,
  RETRY_STATUS_CODES,
  type RetryTuning,
} from './retry-policy.js';
import { isStoppedBeforeSending, NotSentError, StopGate } from './stop.js';
import { ThrottleWatch } from './throttle-watch.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  /** Connect, headers and body timeout of each attempt. */
  timeoutMs: number;
  /**
   * Sockets kept open to the service at most; none by default: the run's limiter (the service client's)
   * bounds the requests in flight, and the sockets follow.
   */
  connections?: number;
  retry?: Partial<RetryTuning>;
  /** Observers of every attempt (metrics); they run after pacing. */
  hooks?: AttemptHooks;
  /**
   * Slow down before the service's rate limit (X-RateLimit-* headers). On by default; a Pacer shares
   * one budget between transports (tests pass one with a fake clock).
   */
  pacing?: boolean | Pacer;
  /** The service's rate-limit window, which it does not announce (see Pacer). */
  rateWindowMs?: number;
  /** `--rate-budget`: the share of the key's limit attempts may use (see RateBudget). */
  budget?: RateBudget;
  /** Masks the run's secrets in excerpts of the service's answers (none by default). */
  redact?: Redact;
  /** What a refusal of the key part-way says to do (default: set the new key and run again). */
  keyAdvice?: string;
}

export interface RequestOptions {
  query?: Record<string, string | number>;
  form?: URLSearchParams;
  /** Statuses retried for this request (default: 429 and 5xx); network failures are retried anyway. */
  retryStatusCodes?: number[];
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

/** The one place that talks HTTP to the service: headers, encoding, retries, error mapping. */
export class HttpTransport {
  readonly #origin: URL;
  readonly #headers: Record<string, string>;
  readonly #dispatcher: Dispatcher;
  readonly #agent: Dispatcher;
  readonly #timeoutMs: number;
  readonly #proxy: EnvProxy | undefined;
  /** Attempts of one request at most: the first and its retries. */
  readonly maxAttempts: number;
  /** Masks the run's secrets in what the service answered, before an excerpt is cut from it. */
  readonly redact: Redact;
  readonly #gate = new StopGate();
  readonly #key: KeyWatch;
  readonly #throttle: ThrottleWatch;
  readonly #wire: Wire = { inFlight: 0 };

  constructor(options: HttpOptions) {
    this.#origin = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.#headers = {
      authorization: `Bearer ${options.apiKey}`,
      // Without it the service answers a 302 to its HTML login page instead of a JSON 401.
      accept: 'application/json',
      'user-agent': options.userAgent,
    };
    this.#key = new KeyWatch(() => this.stop(), options.keyAdvice);
    const tuning = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeoutMs = options.timeoutMs;
    this.redact = options.redact ?? ((text) => text);
    this.maxAttempts = tuning.maxRetries + 1;
    this.#throttle = new ThrottleWatch(tuning.maxRetryAfterMs);
    const pacer = pacerFor(options, tuning);
    const observed = pacer ? composeHooks(pacer.hooks, options.hooks ?? {}) : (options.hooks ?? {});
    // The budget spaces attempts before the pacer counts them in flight.
    const paced = options.budget ? composeHooks(options.budget.hooks, observed) : observed;
    // Once the run is stopping, an attempt still waiting for its turn is not sent.
    const stopping = this.#gate.signal;
    const hooks = { ...paced, beforeAttempt: () => this.#gate.around(paced.beforeAttempt?.(stopping)) };
    const agentOptions = {
      ...(options.connections ? { connections: options.connections } : {}),
      connect: { timeout: options.timeoutMs },
      allowH2: false, // HTTP/1.1, as the simulator and tests speak it (the bundle leaves HTTP/2 out).
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // An endless body is cut off instead of buffered without limit (a page of 100 websites is ~50 KB).
      maxResponseSize: MAX_RESPONSE_BYTES,
    };
    // HTTPS_PROXY / HTTP_PROXY / NO_PROXY as every other CLI tool reads them; a service on this
    // machine (the simulator, a tunnel) is never sent through a proxy.
    const loopback = isLoopbackHost(this.#origin.hostname);
    this.#agent = loopback ? new Agent(agentOptions) : new EnvHttpProxyAgent(agentOptions);
    // The environment undici's agent read: named in a failure that happened at the proxy.
    this.#proxy = loopback ? undefined : proxyFromEnv(process.env, this.#origin.protocol);
    this.#dispatcher = this.#agent.compose(
      attemptInterceptor(hooks, { deadlineMs: options.timeoutMs, maxBytes: MAX_RESPONSE_BYTES }, this.#wire),
      interceptors.retry({
        retry: createRetryPolicy(tuning, options.hooks?.onRetry, stopping, this.#throttle),
        maxRetries: tuning.maxRetries,
        methods: RETRY_METHODS,
        statusCodes: RETRY_STATUS_CODES,
        errorCodes: RETRY_ERROR_CODES,
        // Hand the last answer back instead of throwing, so a final 503 keeps its body for the report.
        throwOnError: false,
      }),
    );
  }

  async request(
    method: Dispatcher.HttpMethod,
    path: string,
    options: RequestOptions = {},
  ): Promise<JsonResponse> {
    const url = new URL(path.replace(/^\//, ''), this.#origin);
    this.#key.beforeSending(method, url.pathname);
    this.#throttle.beforeSending(method, url.pathname);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
    const headers = { ...this.#headers };
    if (options.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    let status: number;
    let text: string;
    let location: string | undefined;
    let answered: Dispatcher.ResponseData['headers'] = {};
    const watch: AnswerWatch = { lost: false };
    try {
      const response = await this.#dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        body: options.form?.toString(),
        // Also on the agent, but a pool undici makes itself (a SOCKS5 proxy's) has only what each
        // request carries: the attempt's bounds travel with it (the size limit: attempts.ts).
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
        ...(options.retryStatusCodes ? { retryOptions: { statusCodes: options.retryStatusCodes } } : {}),
        // Read by each attempt (attempts.ts), through the retries: undici passes unknown options on.
        ...{ answerWatch: watch },
      });
      status = response.statusCode;
      location = headerOf(response.headers, 'location');
      answered = response.headers;
      text = await response.body.text();
    } catch (cause) {
      if (isStoppedBeforeSending(cause)) {
        const where = { method, path: url.pathname, cause };
        throw new NotSentError(`${method} ${url.pathname}: not sent: the run is stopping`, where);
      }
      const reason = describeFailure(cause, this.#timeoutMs);
      const via = throughProxy(cause, this.#proxy, this.#origin);
      throw new ServiceError(
        `${method} ${url.pathname}: no answer from ${this.#origin.origin}${via} (${reason})`,
        {
          method,
          path: url.pathname,
          cause,
        },
      );
    }
    const answer = { method, path: url.pathname, base: this.#origin.origin, status, text, location };
    const throttled = this.#throttle.seen(status, answered);
    const decoded = { ...answer, throttled, afterLostAnswer: watch.lost };
    return this.#key.answer(() => decodeResponse(decoded, this.redact));
  }

  /** Sends nothing more: the requests in flight finish, every other one fails as NotSentError. */
  stop(): void {
    this.#gate.stop();
  }

  /** Whether the service refused the key: at once, or after accepting it (rotated or revoked). */
  get keyRefusal(): KeyRefusal | undefined {
    return this.#key.refusal;
  }

  /** Attempts sent and not answered yet: what a stop really waits for (not those waiting their turn). */
  get inFlight(): number {
    return this.#wire.inFlight;
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function pacerFor(options: HttpOptions, tuning: RetryTuning): Pacer | undefined {
  const { pacing, rateWindowMs: windowMs } = options;
  if (pacing === false) return undefined;
  // A throttled request waits no longer than the retry policy would honour a Retry-After.
  if (pacing instanceof Pacer) return pacing;
  const onWindow = options.hooks?.onRateWindow;
  return new Pacer({
    maxPauseMs: tuning.maxRetryAfterMs,
    ...(windowMs ? { windowMs } : {}),
    ...(onWindow ? { onWindow } : {}),
  });
}

function decodeResponse(answer: RawAnswer, redact: Redact): JsonResponse {
  const { method, path, base, status, text } = answer;
  const body = parseJson(text);
  const where = { method, path, status };
  if (status === 401 || status === 403) {
    const said = readErrorBody(body, redact).message;
    throw new AuthError(
      `${base} refused the API key (${status}${said ? ` ${said}` : ''}). Check WEBSITES_SYNC_API_KEY or --api-key-file.`,
      { ...where, serviceMessage: said },
    );
  }
  if (status >= 300 && status < 400) throw redirectError(answer);
  if (answer.throttled) {
    const said = readErrorBody(body, redact).message;
    throw new ServiceError(
      `${method} ${path}: ${status}${said ? ` ${said}` : ''}: ${answer.throttled}`,
      where,
    );
  }
  if (body === undefined) {
    const excerpt = excerptOf(text, redact);
    throw new ServiceError(`${method} ${path}: unexpected answer ${status} (not JSON): ${excerpt}`, {
      ...where,
      excerpt,
    });
  }
  if (status >= 400) {
    const { message, fieldErrors } = readErrorBody(body, redact);
    throw new ServiceError(`${method} ${path}: ${status} ${message ?? 'error'}`, {
      ...where,
      serviceMessage: message,
      fieldErrors,
      afterLostAnswer: answer.afterLostAnswer ?? false,
    });
  }
  return { status, body };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The largest answer read; anything longer is hostile or broken. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const TIMEOUT_REASONS: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'could not connect',
  UND_ERR_HEADERS_TIMEOUT: 'no response',
  UND_ERR_BODY_TIMEOUT: 'the response stalled',
  WS_BODY_DEADLINE: 'the whole response did not arrive',
};

/** Says which timeout expired, in terms of `--timeout`, rather than undici's class name. */
function describeFailure(cause: unknown, timeoutMs: number): string {
  const code = (cause as { code?: unknown } | null)?.code;
  const timeout = typeof code === 'string' ? TIMEOUT_REASONS[code] : undefined;
  if (timeout) return `${timeout} within ${timeoutMs / 1000}s; see --timeout`;
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || code === 'WS_RESPONSE_TOO_LARGE') {
    return `the answer was longer than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; stopped reading it`;
  }
  // A name with several addresses (IPv4 and IPv6: localhost, a dual-stack host), each refused: Node's
  // error has no message of its own, only one for each address.
  if (cause instanceof AggregateError && !cause.message) {
    return cause.errors.map((each) => (each instanceof Error ? each.message : String(each))).join('; ');
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  // undici's words for a proxy that wants credentials, which the proxy's URL carries.
  if (message.startsWith('Proxy response (407)')) {
    return `${message}: the proxy asks for credentials; give them in its URL, http://user:password@host:port`;
  }
  return message;
}
