import type { RemoteWebsite, WebsiteWrite } from '../model.js';
import { ServiceError } from './errors.js';
import type { HttpTransport } from './http.js';
import { LIST_PATH, listPages } from './paging.js';
import { encodeWrite, parseRecord } from './records.js';

/** The remote as the higher stages see it; tests substitute it without HTTP. */
export interface WebsiteService {
  /** Every website of the account, complete and consistent, or a ServiceError. */
  listWebsites(): Promise<RemoteWebsite[]>;
  /** The account's website with exactly this (canonical) domain, if any. */
  findWebsite(domain: string): Promise<RemoteWebsite | undefined>;
  createWebsite(domain: string, write: WebsiteWrite): Promise<RemoteWebsite>;
  updateWebsite(id: number, write: WebsiteWrite): Promise<RemoteWebsite>;
  /** 'already-gone' when the service answers 404: the goal of a delete is reached either way. */
  deleteWebsite(id: number): Promise<'deleted' | 'already-gone'>;
}

export interface HttpWebsiteServiceOptions {
  /** Pages fetched at once. */
  concurrency: number;
  /** Attempts at a consistent listing before giving up. */
  listAttempts?: number;
}

export class HttpWebsiteService implements WebsiteService {
  readonly #http: HttpTransport;
  readonly #options: HttpWebsiteServiceOptions;

  constructor(http: HttpTransport, options: HttpWebsiteServiceOptions) {
    this.#http = http;
    this.#options = options;
  }

  async listWebsites(): Promise<RemoteWebsite[]> {
    const attempts = this.#options.listAttempts ?? 3;
    let problem = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const listing = await this.#listOnce();
      if (listing.consistent) return listing.records;
      problem = listing.problem;
    }
    // Planning from a partial view could create duplicates or delete live websites: refuse instead.
    throw new ServiceError(`GET ${LIST_PATH}: the listing kept changing while paging (${problem})`, {
      method: 'GET',
      path: LIST_PATH,
    });
  }

  async #listOnce(): Promise<{ records: RemoteWebsite[]; consistent: boolean; problem: string }> {
    const byId = new Map<number, RemoteWebsite>();
    const totals = new Set<number>();
    for await (const page of listPages(this.#http, { concurrency: this.#options.concurrency })) {
      for (const record of page.records) byId.set(record.id, record);
      if (page.total !== undefined) totals.add(page.total);
    }
    const records = [...byId.values()];
    if (totals.size > 1) {
      return { records, consistent: false, problem: `total went from ${[...totals].join(' to ')}` };
    }
    const [total] = totals;
    if (total !== undefined && total !== records.length) {
      return { records, consistent: false, problem: `${records.length} collected, ${total} announced` };
    }
    return { records, consistent: true, problem: '' };
  }

  async findWebsite(domain: string): Promise<RemoteWebsite | undefined> {
    for await (const page of listPages(this.#http, { concurrency: 1, search: domain })) {
      const match = page.records.find((r) => r.domain.toLowerCase() === domain);
      if (match) return match;
    }
    return undefined;
  }

  async createWebsite(domain: string, write: WebsiteWrite): Promise<RemoteWebsite> {
    const { body } = await this.#http.request('POST', LIST_PATH, { form: encodeWrite(write, domain) });
    return this.#record('POST', LIST_PATH, body);
  }

  async updateWebsite(id: number, write: WebsiteWrite): Promise<RemoteWebsite> {
    const path = `${LIST_PATH}/${id}`;
    const { body } = await this.#http.request('PATCH', path, { form: encodeWrite(write) });
    return this.#record('PATCH', path, body);
  }

  async deleteWebsite(id: number): Promise<'deleted' | 'already-gone'> {
    try {
      await this.#http.request('DELETE', `${LIST_PATH}/${id}`);
      return 'deleted';
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return 'already-gone';
      throw error;
    }
  }

  #record(method: string, path: string, body: unknown): RemoteWebsite {
    const data = body && typeof body === 'object' && 'data' in body ? body.data : undefined;
    const record = parseRecord(data);
    if (!record) {
      throw new ServiceError(`${method} ${path}: the answer carries no website record`, { method, path });
    }
    return record;
  }
}
