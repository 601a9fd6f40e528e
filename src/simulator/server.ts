// The HTTP side of the simulator: records every request, runs the test hook, injects faults, then
// authenticates, throttles and dispatches like the service's middleware stack (routing first, then
// `auth`, then `throttle`, then the controller).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { FaultDecision, FaultInjector } from './faults.js';
import {
  echoPageHtml,
  errorPageHtml,
  expectsJson,
  headersToRecord,
  loginPageHtml,
  parseBody,
  readBody,
  redirectHtml,
  requestUrl,
  searchParamsToRecord,
  statusTitle,
  writeHtml,
  writeJson,
} from './http-io.js';
import type { ListShape } from './listing.js';
import type { FixedWindowLimiter } from './rate-limit.js';
import { matchRoute, type RouteName, runAction } from './routes.js';
import type { WebsiteStore } from './store.js';
import type { TrafficStore } from './traffic.js';

/** What a test hook sees of a request before it is handled. */
export interface RecordedRequestStart {
  method: string;
  /** Path without query string, e.g. `/api/v1/websites/3`. */
  path: string;
  query: Record<string, string>;
  /** Parsed form (or JSON) body; undefined when the request had no body. */
  body: Record<string, string> | undefined;
  /** Lower-case names, values as sent (`authorization` included, so tests can check it). */
  headers: Record<string, string>;
  /** `now()` when the request arrived. */
  at: number;
}

/**
 * `pending` until the outcome is known; `reset` (connection reset before any effect),
 * `reset-after-commit` (the change was applied, then the connection reset) or `hang` (never answered).
 */
export type RecordedStatus = number | 'pending' | 'reset' | 'reset-after-commit' | 'hang';

export interface RecordedRequest extends RecordedRequestStart {
  status: RecordedStatus;
}

export type RequestHook = (req: RecordedRequestStart) => void | Promise<void>;

export interface HandlerConfig {
  apiKey: string;
  store: WebsiteStore;
  traffic: TrafficStore;
  faults: FaultInjector;
  listShape: ListShape;
  defaultPerPage: number;
  missingUpdateStatus: 404 | 500;
  now: () => number;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  url: URL;
  json: boolean;
}

const API_PREFIX = '/api/v1/';

export class SimulatorHandler {
  readonly requests: RecordedRequest[] = [];
  /** Requests being handled now, and the most at once since the last clear. */
  inFlight = 0;
  maxInFlight = 0;
  onRequest: RequestHook | undefined;
  limiter: FixedWindowLimiter | undefined;
  readonly #config: HandlerConfig;
  readonly #closing = new AbortController();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(config: HandlerConfig) {
    this.#config = config;
  }

  /** The account's key; replacing it revokes the old one (requests with it answer 401 from then on). */
  get apiKey(): string {
    return this.#config.apiKey;
  }

  set apiKey(key: string) {
    this.#config.apiKey = key;
  }

  /** Stops delayed and hung requests so the server can close at once. */
  shutdown(): void {
    this.#closing.abort();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    const raw = await readBody(req).catch(() => '');
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: searchParamsToRecord(url.searchParams),
      body: parseBody(raw, req.headers['content-type']),
      headers: headersToRecord(req.headers),
      status: 'pending',
      at: this.#config.now(),
    };
    this.requests.push(record);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.once('close', () => this.inFlight--);
    const exchange: Exchange = { req, res, record, url, json: expectsJson(req.headers) };
    try {
      await this.onRequest?.(record);
      if (url.pathname.startsWith(API_PREFIX)) await this.#api(exchange);
      else this.#web(exchange);
    } catch (error) {
      if (this.#closing.signal.aborted || res.headersSent || res.destroyed) return;
      // A throwing test hook (or a simulator bug) surfaces as the 500 a PHP error would give.
      this.#json(exchange, 500, { message: 'Server Error', exception: String(error) });
    }
  }

  async #api(ex: Exchange): Promise<void> {
    const fault = this.#config.faults.decideFor(ex.url.pathname);
    if (fault.kind === 'hang') return this.#hang(ex, fault);
    if (fault.delayMs > 0) await delay(fault.delayMs, undefined, { signal: this.#closing.signal });
    if (this.#answerFault(ex, fault)) return;

    const { method } = ex.record;
    const route = matchRoute(method, ex.url.pathname);
    const routePath = ex.url.pathname.replace(/^\/+|\/+$/g, '');
    if (route.kind === 'not-found') {
      return this.#exception(ex, 404, `The route ${routePath} could not be found.`);
    }
    if (route.kind === 'method-not-allowed') {
      const allowed = route.allowed.join(', ');
      const message = `The ${method} method is not supported for route ${routePath}. Supported methods: ${allowed}.`;
      return this.#exception(ex, 405, message, { Allow: allowed });
    }
    if (!this.#authenticated(ex.req)) {
      if (ex.json) return this.#json(ex, 401, { message: 'Unauthenticated.' });
      return this.#redirect(ex, `${ex.url.origin}/login`);
    }
    this.apiKey = this.#config.faults.keyRotationDue(this.apiKey) ?? this.apiKey;
    const rate = this.limiter?.hit(this.#config.apiKey, ex.record.at);
    const headers = rate?.headers ?? {};
    if (rate && !rate.allowed) return this.#exception(ex, 429, 'Too Many Attempts.', headers);
    this.#dispatch(ex, route.name, route.id, fault, headers);
  }

  #dispatch(
    ex: Exchange,
    name: RouteName,
    id: string | undefined,
    fault: FaultDecision,
    headers: Record<string, string>,
  ): void {
    const { store, traffic, listShape, defaultPerPage, missingUpdateStatus } = this.#config;
    const listPath = `${ex.url.origin}/api/v1/websites`;
    const stuckPages = fault.kind === 'stuck-page' ? fault.stuckPages : undefined;
    const { accountFault, statsFault } = this.#config.faults.options;
    const result = runAction(
      {
        ...{ store, traffic, listShape, defaultPerPage, listPath, missingUpdateStatus, stuckPages },
        ...{ accountFault, statsFault },
      },
      { name, id },
      ex.record.query,
      ex.record.body,
    );
    if (fault.kind === 'reset-after-commit' && result.committed) {
      this.#reset(ex, 'reset-after-commit');
    } else if (fault.kind === 'given-body') {
      this.#json(ex, result.status, fault.givenBody, headers);
    } else if (result.fieldErrors && !ex.json) {
      // Laravel answers a failed validation of a non-JSON request by redirecting back.
      this.#redirect(ex, ex.req.headers.referer ?? `${ex.url.origin}/`, headers);
    } else {
      this.#json(ex, result.status, result.json, { ...headers, ...result.headers });
    }
  }

  /** Answers the request when the fault replaces normal handling; returns whether it did. */
  #answerFault(ex: Exchange, fault: FaultDecision): boolean {
    switch (fault.kind) {
      case 'reset':
        this.#reset(ex, 'reset');
        return true;
      case 'login-redirect':
        this.#redirect(ex, `${ex.url.origin}/login`);
        return true;
      case 'throttle':
        this.#exception(ex, 429, 'Too Many Attempts.', {
          'X-RateLimit-Limit': String(this.limiter?.options.limit ?? 60),
          'X-RateLimit-Remaining': '0',
          'Retry-After': String(fault.retryAfterSeconds),
          'X-RateLimit-Reset': String(Math.ceil(this.#config.now() / 1000) + fault.retryAfterSeconds),
        });
        return true;
      case 'error':
        if (fault.errorAsHtml) {
          this.#html(ex, fault.errorStatus, errorPageHtml(fault.errorStatus, statusTitle(fault.errorStatus)));
        } else {
          this.#json(ex, fault.errorStatus, { message: statusTitle(fault.errorStatus) });
        }
        return true;
      case 'echo-422': {
        const password = ex.record.body?.password ?? '';
        this.#json(ex, 422, {
          message: `The password "${password}" is not valid.`,
          errors: { password: [`The password "${password}" is not valid.`] },
        });
        return true;
      }
      case 'echo-html':
        this.#html(ex, 500, echoPageHtml(ex.record.headers, ex.record.body));
        return true;
      case 'html':
        this.#html(
          ex,
          fault.htmlStatus,
          fault.htmlStatus === 200 ? loginPageHtml() : errorPageHtml(500, 'Server Error'),
        );
        return true;
      default:
        return false;
    }
  }

  #web(ex: Exchange): void {
    if (ex.record.method === 'GET' && ex.url.pathname === '/login') {
      this.#html(ex, 200, loginPageHtml());
    } else {
      const path = ex.url.pathname.replace(/^\/+|\/+$/g, '');
      this.#exception(ex, 404, `The route ${path} could not be found.`);
    }
  }

  #authenticated(req: IncomingMessage): boolean {
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    return match?.[1]?.trim() === this.#config.apiKey;
  }

  #hang(ex: Exchange, fault: FaultDecision): void {
    ex.record.status = 'hang';
    if (fault.hangMs === undefined) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      ex.res.socket?.destroy();
    }, fault.hangMs);
    this.#timers.add(timer);
  }

  #reset(ex: Exchange, status: 'reset' | 'reset-after-commit'): void {
    ex.record.status = status;
    const socket = ex.res.socket;
    // A TCP RST (ECONNRESET at the client) rather than a clean close, like a dropped proxy connection.
    if (socket && 'resetAndDestroy' in socket && typeof socket.resetAndDestroy === 'function')
      socket.resetAndDestroy();
    else socket?.destroy();
  }

  /** Laravel renders exceptions as JSON for JSON clients and as an HTML error page otherwise. */
  #exception(ex: Exchange, status: number, message: string, headers: Record<string, string> = {}): void {
    if (ex.json) this.#json(ex, status, { message }, headers);
    else this.#html(ex, status, errorPageHtml(status, statusTitle(status)), headers);
  }

  #json(ex: Exchange, status: number, body: unknown, headers: Record<string, string> = {}): void {
    ex.record.status = status;
    writeJson(ex.res, status, body, headers);
  }

  #html(ex: Exchange, status: number, html: string, headers: Record<string, string> = {}): void {
    ex.record.status = status;
    writeHtml(ex.res, status, html, headers);
  }

  #redirect(ex: Exchange, location: string, headers: Record<string, string> = {}): void {
    ex.record.status = 302;
    writeHtml(ex.res, 302, redirectHtml(location), { ...headers, Location: location });
  }
}
