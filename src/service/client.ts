import type { LimitFunction } from 'p-limit';
import {
  type PlanLimit,
  type RemoteWebsite,
  type TrafficReading,
  type WebsiteId,
  type WebsiteWrite,
  websiteKey,
} from '../model/index.js';
import { readRecord } from './answers.js';
import { jsonExcerptOf, ServiceError } from './errors.js';
import { readPlanLimit, readTraffic, type TrafficWindow } from './guard-reads.js';
import type { HttpTransport, JsonResponse } from './http.js';
import type { KeyRefusal } from './key-watch.js';
import { readListing, sameListing } from './listing.js';
import { lookupFailed } from './lookup-after.js';
import { notAddingUp } from './page-checks.js';
import { LIST_PATH, listPages } from './paging.js';
import { encodeWrite } from './records.js';
import { NotSentError } from './stop.js';

/**
 * What a plan decided from a listing: domains to create (the listing says absent) and ids to delete
 * (it says present). Checking just these can cost fewer requests than reading every page again.
 */
export interface ListingDecisions {
  absent: readonly string[];
  present: readonly WebsiteId[];
}

/** The remote as the higher stages see it; tests substitute it without HTTP. */
export interface WebsiteService {
  /** Every website of the account, complete and consistent, or a ServiceError. */
  listWebsites(): Promise<RemoteWebsite[]>;
  /**
   * A listing read in several pages is not a snapshot: an edit made meanwhile can hide a record
   * without leaving a trace (a deletion on an early page plus an addition at the end). Before acting
   * on what the listing says is absent or present (creates, deletes), the caller asks for a fresh
   * read: undefined when the last listing was already a snapshot (one page) or confirmed.
   */
  confirmListing?(decisions?: ListingDecisions): Promise<RemoteWebsite[] | undefined>;
  /** The account's website with exactly this (canonical) domain, if any. */
  findWebsite(domain: string): Promise<RemoteWebsite | undefined>;
  /** One website as stored now (`show`), or undefined when it no longer exists. */
  showWebsite?(id: WebsiteId): Promise<RemoteWebsite | undefined>;
  /**
   * The run's one concurrency limiter: whatever works in units (pages, operations) takes a slot per
   * unit, and a unit sends one request at a time, so `--concurrency` bounds the requests in flight.
   */
  readonly limit?: LimitFunction;
  /** Stores sent for one website at most, each after a lookup found nothing (as many as other retries). */
  readonly storeAttempts?: number;
  createWebsite(domain: string, write: WebsiteWrite): Promise<RemoteWebsite>;
  updateWebsite(id: WebsiteId, write: WebsiteWrite): Promise<RemoteWebsite>;
  /**
   * 'already-gone' when the service answers 404: the goal of a delete is reached either way. A 404 after
   * an attempt that went out and lost its answer is 'deleted': that attempt deleted it.
   */
  deleteWebsite(id: WebsiteId): Promise<'deleted' | 'already-gone'>;
  /** The account's plan limit (`GET /api/v1/account`, one request); unknown when it cannot be read. */
  readPlanLimit?(): Promise<PlanLimit>;
  /** A website's visitors over the window (`GET /api/v1/stats/{id}`, one request); unknown when unreadable. */
  readTraffic?(id: WebsiteId, window: TrafficWindow): Promise<TrafficReading>;
  /**
   * Sends nothing more (the run is stopping): requests in flight finish; every other one, a retry
   * waiting for its pause or an attempt waiting for its turn, fails at once as NotSentError.
   */
  stop?(): void;
  /** Requests sent and not answered yet: what a stop still waits for. */
  readonly inFlight?: number;
  /** Whether the service refused the key: at once, or after accepting it (rotated or revoked). */
  readonly keyRefusal?: KeyRefusal | undefined;
}

export interface HttpWebsiteServiceOptions {
  /** The run's one concurrency limiter (`--concurrency`): listings, lookups and apply share it. */
  limit: LimitFunction;
  /** Attempts at a consistent listing before giving up. */
  listAttempts?: number;
}

export class HttpWebsiteService implements WebsiteService {
  readonly #http: HttpTransport;
  readonly #options: HttpWebsiteServiceOptions;
  /** The last listing when it was read in several pages and not confirmed yet, and its page count. */
  #unconfirmed: RemoteWebsite[] | undefined;
  #unconfirmedPages = 0;

  constructor(http: HttpTransport, options: HttpWebsiteServiceOptions) {
    this.#http = http;
    this.#options = options;
  }

  get limit(): LimitFunction {
    return this.#options.limit;
  }

  stop(): void {
    this.#http.stop();
  }

  get inFlight(): number {
    return this.#http.inFlight;
  }

  get keyRefusal(): KeyRefusal | undefined {
    return this.#http.keyRefusal;
  }

  async listWebsites(): Promise<RemoteWebsite[]> {
    const attempts = this.#options.listAttempts ?? 3;
    let problem = '';
    let previous: RemoteWebsite[] | undefined;
    let unchanged = true;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const listing = await readListing(this.#http, this.#options.limit);
      if (listing.problem === undefined) {
        this.#unconfirmed = listing.pages > 1 ? listing.records : undefined;
        this.#unconfirmedPages = listing.pages;
        return listing.records;
      }
      // A listing edited while paging reads differently each time; one that never adds up, the same.
      unchanged &&=
        previous === undefined || (listing.problem === problem && sameListing(previous, listing.records));
      previous = listing.records;
      problem = listing.problem;
    }
    // Planning from a partial view could create duplicates or delete live websites: refuse instead.
    throw unchanged ? inconsistentListing(problem, attempts) : changingListing(problem);
  }

  /**
   * Reads the account again until two listings in a row agree (a change can hide in one, not twice);
   * or, when that costs fewer requests, checks only the plan's decisions: each domain to create is
   * looked up and each website to delete shown, and the listing is corrected by what they find.
   */
  async confirmListing(decisions?: ListingDecisions): Promise<RemoteWebsite[] | undefined> {
    let previous = this.#unconfirmed;
    if (!previous) return undefined;
    if (decisions && decisions.absent.length + decisions.present.length < this.#unconfirmedPages) {
      this.#unconfirmed = undefined;
      return this.#confirmDecisions(previous, decisions);
    }
    const attempts = this.#options.listAttempts ?? 3;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const again = await this.listWebsites();
      if (sameListing(previous, again)) {
        this.#unconfirmed = undefined;
        return again;
      }
      previous = again;
    }
    throw changingListing('two listings in a row never agreed');
  }

  async #confirmDecisions(listing: RemoteWebsite[], decisions: ListingDecisions): Promise<RemoteWebsite[]> {
    const { limit } = this.#options;
    const [found, gone] = await Promise.all([
      Promise.all(decisions.absent.map((domain) => limit(() => this.findWebsite(domain)))),
      Promise.all(decisions.present.map((id) => limit(async () => ((await this.#exists(id)) ? [] : [id])))),
    ]);
    const goneIds = new Set<WebsiteId>(gone.flat());
    const corrected = listing.filter((record) => !goneIds.has(record.id));
    const known = new Set(corrected.map((record) => record.id));
    for (const record of found) if (record && !known.has(record.id)) corrected.push(record);
    return corrected;
  }

  get storeAttempts(): number {
    return this.#http.maxAttempts;
  }

  async findWebsite(domain: string): Promise<RemoteWebsite | undefined> {
    // No slot taken: a create's lookup runs inside its operation's slot.
    for await (const page of listPages(this.#http, { search: domain })) {
      const match = page.records.find((r) => websiteKey(r.domain) === websiteKey(domain));
      if (match) return match;
    }
    return undefined;
  }

  async createWebsite(domain: string, write: WebsiteWrite): Promise<RemoteWebsite> {
    const response = await this.#http.request('POST', LIST_PATH, { form: encodeWrite(write, domain) });
    return this.#record('POST', LIST_PATH, response, `the new website ${domain}`);
  }

  async updateWebsite(id: WebsiteId, write: WebsiteWrite): Promise<RemoteWebsite> {
    const path = pathOf(id);
    const form = encodeWrite(write);
    const response = await this.#afterServerError(id, 'PATCH', (retryStatusCodes) =>
      this.#http.request('PATCH', path, { form, ...(retryStatusCodes ? { retryStatusCodes } : {}) }),
    );
    return this.#record('PATCH', path, response, `website ${id}`);
  }

  async deleteWebsite(id: WebsiteId): Promise<'deleted' | 'already-gone'> {
    try {
      await this.#afterServerError(id, 'DELETE', (retryStatusCodes) =>
        this.#http.request('DELETE', pathOf(id), retryStatusCodes ? { retryStatusCodes } : {}),
      );
      return 'deleted';
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 404 || error.vanished)) {
        // A 404 after an attempt whose answer was lost: that attempt deleted it, then the connection broke.
        return error.status === 404 && error.afterLostAnswer ? 'deleted' : 'already-gone';
      }
      throw error;
    }
  }

  /**
   * A 5xx on an update or delete is not retried blindly: one variant of the service answers an update
   * of a missing id with a 500, so the website is looked up (show) first. Gone: "no longer exists",
   * once; still there: the request goes again with the usual retries.
   */
  async #afterServerError(
    id: WebsiteId,
    method: string,
    send: (retryStatusCodes?: number[]) => Promise<JsonResponse>,
  ): Promise<JsonResponse> {
    try {
      return await send([429]);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status === undefined) throw error;
      const serverError = error.status >= 500;
      const maybe = `website ${id} may have been ${method === 'DELETE' ? 'deleted' : 'changed'}`;
      const exists = () =>
        this.#exists(id).catch((lookup: unknown) => {
          throw lookupFailed(error, lookup, maybe);
        });
      const gone = error.status === 404 || (serverError && !(await exists()));
      if (!gone) {
        // Held back by a stop, the request again was not sent: the first one's failure is what happened.
        if (serverError)
          return send().catch((again: unknown) =>
            Promise.reject(again instanceof NotSentError ? error : again),
          );
        throw error;
      }
      throw new ServiceError(
        `${method} ${pathOf(id)}: website ${id} no longer exists (deleted since the listing); nothing to change`,
        { method, path: pathOf(id), status: 404, vanished: true, afterLostAnswer: error.afterLostAnswer },
      );
    }
  }

  readPlanLimit(): Promise<PlanLimit> {
    return readPlanLimit(this.#http);
  }

  readTraffic(id: WebsiteId, window: TrafficWindow): Promise<TrafficReading> {
    return readTraffic(this.#http, id, window);
  }

  async showWebsite(id: WebsiteId): Promise<RemoteWebsite | undefined> {
    const path = pathOf(id);
    try {
      return this.#record('GET', path, await this.#http.request('GET', path), `website ${id}`);
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return undefined;
      throw error;
    }
  }

  async #exists(id: WebsiteId): Promise<boolean> {
    try {
      await this.#http.request('GET', pathOf(id));
      return true;
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return false;
      throw error;
    }
  }

  /**
   * The website an answer holds. A success the tool cannot use is an error of that status: for a
   * store, an ambiguous one, so the caller looks the website up rather than storing it again.
   */
  #record(method: string, path: string, { status, body }: JsonResponse, what: string): RemoteWebsite {
    const redact = this.#http.redact;
    const data = body && typeof body === 'object' && 'data' in body ? body.data : undefined;
    const reading = data === undefined ? undefined : readRecord(data, redact);
    if (reading && 'record' in reading) return reading.record;
    const excerpt = jsonExcerptOf(body, redact);
    const why = reading ? `a website it cannot use: ${reading.problem}` : `no website: ${excerpt}`;
    throw new ServiceError(`${method} ${path}: the answer ${status} for ${redact(what)} holds ${why}`, {
      method,
      path,
      status,
      excerpt,
    });
  }
}

function pathOf(id: WebsiteId): string {
  return `${LIST_PATH}/${encodeURIComponent(String(id))}`;
}

/** The same contradiction in every read of the same websites: not an edit, the answers themselves. */
function inconsistentListing(problem: string, reads: number): ServiceError {
  return notAddingUp(`${problem}, the same in ${reads} reads of the same websites`);
}

function changingListing(problem: string): ServiceError {
  return new ServiceError(`GET ${LIST_PATH}: the listing kept changing while paging (${problem})`, {
    method: 'GET',
    path: LIST_PATH,
  });
}
