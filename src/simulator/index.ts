// The local simulator of the website API: an in-memory account behind `node:http`, with the
// service's quirks (section 2 of the product spec), a request log and fault injection.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultInjector, type FaultOptions } from './faults.js';
import type { ListShape } from './listing.js';
import { FixedWindowLimiter, type RateLimitOptions } from './rate-limit.js';
import { type RecordedRequest, type RequestHook, SimulatorHandler } from './server.js';
import {
  type SeedWebsite,
  SimulatorValidationError,
  type StoredWebsite,
  seedToForm,
  type WebsiteChanges,
  WebsiteStore,
  type WriteResult,
} from './store.js';
import { dateOf, TrafficStore } from './traffic.js';
import { applyInputMiddleware } from './validation.js';

export type { EndpointFault, FaultDecision, FaultKind, FaultOptions } from './faults.js';
export type { ListShape } from './listing.js';
export { FixedWindowLimiter, type RateLimitOptions } from './rate-limit.js';
export type { RecordedRequest, RecordedRequestStart, RecordedStatus, RequestHook } from './server.js';
export {
  canonicalDomain,
  type SeedWebsite,
  SimulatorValidationError,
  type StoredWebsite,
  type WebsiteChanges,
  type WebsiteRecord,
} from './store.js';

/**
 * Seeded websites stand for records made in the web UI, which fills privacy and email; seed them as
 * `null` explicitly for a record a store left without them (the API itself stores null when omitted).
 */
const WEB_UI_DEFAULTS = { privacy: 1, email: false } as const;

function seedForm(seed: SeedWebsite) {
  return applyInputMiddleware(seedToForm({ ...WEB_UI_DEFAULTS, ...seed }));
}

/** A seed's `visitors_last_30d`, recorded for the website it became. */
function seedTraffic(traffic: TrafficStore, seed: SeedWebsite, website: StoredWebsite, now: number): void {
  if (seed.visitors_last_30d) traffic.seedLast30Days(website.id, seed.visitors_last_30d, now);
}

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** The one account's key. Default `test-key`. */
  apiKey?: string;
  /** Default `resource` (Laravel resource collection). */
  listShape?: ListShape;
  /** Page size when `per_page` is absent or not one of 10/25/50/100. Default 10. */
  defaultPerPage?: number;
  /**
   * The ids the API shows: integers by default; with a prefix, strings such as `w-1`, `w-2` (the seed
   * leaves the format open). `listWebsites()` and the direct-access methods keep the stored number.
   */
  idPrefix?: string;
  /** Plan limit: stores beyond it answer 422 on `domain`; `/account` tells it. Default unlimited (-1). */
  maxWebsites?: number;
  /**
   * How an update of a missing id is answered: 404 (default), or 500 as a public variant of the service
   * does (a swapped-argument bug). Validation runs first either way (a 422 can come before either).
   */
  missingUpdateStatus?: 404 | 500;
  /** Domains held by other accounts of the service (stores of them answer 422 "taken"). */
  takenDomains?: string[];
  /**
   * The account's websites at start, stored in order (ids 1, 2, …) through the service's rules, or
   * exactly as given when a seed says `stored_as_written` (as `insertStored`).
   */
  websites?: SeedWebsite[];
  /** Default: no limit, and no `X-RateLimit-*` headers. */
  rateLimit?: RateLimitOptions;
  faults?: FaultOptions;
  /** Clock for timestamps, rate-limit windows and the request log. Default `Date.now`. */
  now?: () => number;
}

export interface Simulator {
  /** Base URL without `/api/v1`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** The account's current key. */
  readonly apiKey: string;
  /** Every request received, in arrival order (live array). */
  readonly requests: readonly RecordedRequest[];
  /** The most requests handled at once since the start or the last clearRequests(). */
  readonly maxInFlight: number;
  clearRequests(): void;
  /** Merges into the current fault options; `seed` restarts the PRNG, `script` replaces the queue. */
  setFaults(partial: Partial<FaultOptions>): void;
  /** Replaces the rate limit (and forgets the current window); undefined removes it. */
  setRateLimit(rateLimit: RateLimitOptions | undefined): void;
  setMaxWebsites(maxWebsites: number | undefined): void;
  /** Replaces the account's key: the old one is revoked (a key rotated while a run is under way). */
  setApiKey(apiKey: string): void;
  /** Another account takes this domain. */
  addTakenDomain(domain: string): void;
  /** Records visitors of a website on a day (`Y-m-d`, default today): `/stats/{id}?name=visitors` sums them. */
  addVisitors(id: number, count: number, date?: string): void;
  /** Copies of every stored website, by id, with the write-only fields and the password in clear. */
  listWebsites(): StoredWebsite[];
  /** Creates a website as the web UI would (same rules); throws SimulatorValidationError if refused. */
  createWebsite(website: SeedWebsite): StoredWebsite;
  /**
   * A record stored exactly as given, bypassing the store rule and validation: one typed in the web UI
   * or stored before the service's `www.` rule (`www.legacy.example.com`, `DUP.example.com`).
   */
  insertStored(website: SeedWebsite): StoredWebsite;
  /** Changes a website as the web UI would; throws if it does not exist or the change is refused. */
  updateWebsite(id: number, changes: WebsiteChanges): StoredWebsite;
  /** Returns whether it existed. */
  deleteWebsite(id: number): boolean;
  /** Called before each request is handled, after it is recorded; may be async. */
  onRequest: RequestHook | undefined;
  close(): Promise<void>;
}

function unwrap(result: WriteResult, id?: number): StoredWebsite {
  if (result.kind === 'invalid') throw new SimulatorValidationError(result.errors);
  if (result.kind === 'not-found') throw new Error(`simulator: no website with id ${id}`);
  return structuredClone(result.website);
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const store = new WebsiteStore({
    maxWebsites: options.maxWebsites,
    idPrefix: options.idPrefix,
    takenDomains: options.takenDomains,
    now,
  });
  const traffic = new TrafficStore();
  for (const seed of options.websites ?? []) {
    const asStored = seed.stored_as_written === true;
    seedTraffic(traffic, seed, unwrap(store.store(seedForm(seed), { asStored })), now());
  }
  const apiKey = options.apiKey ?? 'test-key';
  const faults = new FaultInjector(options.faults);
  const handler = new SimulatorHandler({
    apiKey,
    store,
    traffic,
    faults,
    listShape: options.listShape ?? 'resource',
    defaultPerPage: options.defaultPerPage ?? 10,
    missingUpdateStatus: options.missingUpdateStatus ?? 404,
    now,
  });
  handler.limiter = options.rateLimit && new FixedWindowLimiter(options.rateLimit, now);
  // handle() answers its own failures; this only guards against a crash from a bug in that path.
  const server = createServer((req, res) => void handler.handle(req, res).catch(() => res.destroy()));
  const host = options.host ?? '127.0.0.1';
  const address = await listen(server, host, options.port ?? 0);
  return buildSimulator({ server, handler, store, traffic, faults, now, host, port: address.port });
}

interface Parts {
  server: Server;
  handler: SimulatorHandler;
  store: WebsiteStore;
  traffic: TrafficStore;
  faults: FaultInjector;
  now: () => number;
  host: string;
  port: number;
}

function buildSimulator({ server, handler, store, traffic, faults, now, host, port }: Parts): Simulator {
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    get apiKey() {
      return handler.apiKey;
    },
    requests: handler.requests,
    get maxInFlight() {
      return handler.maxInFlight;
    },
    clearRequests: () => {
      handler.requests.length = 0;
      handler.maxInFlight = handler.inFlight;
    },
    setFaults: (partial) => faults.set(partial),
    setRateLimit: (rateLimit) => {
      handler.limiter = rateLimit && new FixedWindowLimiter(rateLimit, now);
    },
    setApiKey: (key) => {
      handler.apiKey = key;
    },
    setMaxWebsites: (max) => {
      store.maxWebsites = max;
    },
    addTakenDomain: (domain) => store.addTakenDomain(domain),
    addVisitors: (id, count, date) => traffic.add(id, date ?? dateOf(now()), count),
    listWebsites: () => structuredClone(store.all()),
    createWebsite: (website) => {
      const created = unwrap(store.store(seedForm(website)));
      seedTraffic(traffic, website, created, now());
      return created;
    },
    insertStored: (website) => unwrap(store.store(seedForm(website), { asStored: true })),
    updateWebsite: (id, changes) => unwrap(store.update(id, applyInputMiddleware(seedToForm(changes))), id),
    deleteWebsite: (id) => {
      traffic.forget(id);
      return store.remove(id);
    },
    get onRequest() {
      return handler.onRequest;
    },
    set onRequest(hook) {
      handler.onRequest = hook;
    },
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        handler.shutdown();
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive sockets (and hung requests) would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
