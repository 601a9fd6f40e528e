// The in-memory account: its websites, the id sequence, and the service-wide domain registry that
// makes domains of other accounts "taken". Writes go through the same rules as the HTTP API.

import { compareText, type Privacy, serviceStoredDomain } from '../model/index.js';
import {
  type FieldErrors,
  type FormInput,
  hasErrors,
  isPhpInteger,
  summarizeErrors,
  validateStore,
  validateUpdate,
} from './validation.js';

/** A website as the service stores it: everything, the write-only fields and the password included. */
export interface StoredWebsite {
  id: number;
  domain: string;
  /** Null when a store left it out: the seed's defaults are not applied by the service's code. */
  privacy: Privacy | null;
  email: 0 | 1 | null;
  exclude_bots: 0 | 1;
  /** One parameter per line, as received (after trimming); never returned by the API. */
  exclude_params: string | null;
  exclude_ips: string | null;
  /** In clear: tests assert what was sent. The API only says whether one is set. */
  password: string | null;
  favorited_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The record the API returns. */
export interface WebsiteRecord {
  /** The stored id, or with an id prefix the string the API shows (see StoreOptions.idPrefix). */
  id: number | string;
  domain: string;
  privacy: Privacy | null;
  email: 0 | 1 | null;
  password: boolean;
  exclude_bots: 0 | 1;
  exclude_ips: string | null;
  favorite: boolean;
  favorited_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A website to seed or create directly; lists are joined with `\n` as a client would send them. */
export interface SeedWebsite {
  domain: string;
  privacy?: Privacy | null;
  email?: boolean | 0 | 1 | null;
  exclude_bots?: boolean | 0 | 1;
  exclude_params?: string[] | string | null;
  exclude_ips?: string[] | string | null;
  password?: string | null;
  favorite?: boolean;
  /**
   * Stored exactly as given, without the store rule or validation: a record typed in the web UI or
   * stored before the service lower-cased names (`Shop.example.com` beside `shop.example.com`).
   */
  stored_as_written?: boolean;
  /** Not a setting: visitors the website had over the last 30 days, spread over them (`/stats/{id}`). */
  visitors_last_30d?: number;
}

export type WebsiteChanges = Partial<Omit<SeedWebsite, 'domain'>>;

export type WriteResult =
  | { kind: 'ok'; website: StoredWebsite }
  | { kind: 'invalid'; errors: FieldErrors }
  | { kind: 'not-found' };

export interface StoreOptions {
  maxWebsites?: number | undefined;
  /**
   * The ids the API shows: integers (1, 2, …) by default; with a prefix, strings such as `w-1`. The
   * seed leaves the id's format open, so a client must treat ids as opaque strings.
   */
  idPrefix?: string | undefined;
  takenDomains?: string[] | undefined;
  now: () => number;
}

/** What the service does to a domain before validating it, and nothing more. */
/** The domain the service stores: the kernel's model of its rule, so client and simulator agree. */
export function canonicalDomain(raw: string): string {
  return serviceStoredDomain(raw.trim());
}

/** Laravel's JSON form of a timestamp column (second precision, microseconds always zero). */
export function formatTimestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', '.000000Z');
}

export function toRecord(website: StoredWebsite): WebsiteRecord {
  return {
    id: website.id,
    domain: website.domain,
    privacy: website.privacy,
    email: website.email,
    password: website.password !== null && website.password !== '',
    exclude_bots: website.exclude_bots,
    exclude_ips: website.exclude_ips,
    favorite: website.favorited_at !== null,
    favorited_at: website.favorited_at,
    created_at: website.created_at,
    updated_at: website.updated_at,
  };
}

/** Turns a direct-access seed into the form body a client would send. */
export function seedToForm(seed: Partial<SeedWebsite>): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(seed)) {
    // Not settings: how the seed is stored, and its traffic.
    if (value === undefined || key === 'stored_as_written' || key === 'visitors_last_30d') continue;
    if (value === null) form[key] = '';
    else if (typeof value === 'boolean') form[key] = value ? '1' : '0';
    else if (Array.isArray(value)) form[key] = value.join('\n');
    else form[key] = String(value);
  }
  return form;
}

function flag(value: string | null | undefined, fallback: 0 | 1): 0 | 1 {
  return value === null || value === undefined ? fallback : Number(value) === 1 ? 1 : 0;
}

/** PHP truthiness of a form value, which decides `favorite`. */
function phpTruthy(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && value !== '' && value !== '0';
}

export class WebsiteStore {
  readonly #websites = new Map<number, StoredWebsite>();
  readonly #taken = new Set<string>();
  /** Domains on this account, and the websites in id order: kept so large accounts stay fast. */
  readonly #domains = new Set<string>();
  #sorted: StoredWebsite[] | undefined;
  readonly #now: () => number;
  #nextId = 1;
  maxWebsites: number | undefined;
  readonly idPrefix: string | undefined;

  constructor(options: StoreOptions) {
    this.#now = options.now;
    this.idPrefix = options.idPrefix;
    this.maxWebsites = options.maxWebsites;
    for (const domain of options.takenDomains ?? []) this.addTakenDomain(domain);
  }

  /** Marks a domain as held by another account of the service. */
  addTakenDomain(domain: string): void {
    this.#taken.add(canonicalDomain(domain));
  }

  get size(): number {
    return this.#websites.size;
  }

  /** The id the API shows for a stored id. */
  shownId(id: number): number | string {
    return this.idPrefix === undefined ? id : `${this.idPrefix}${id}`;
  }

  /** The stored id a request names (its path's id, as shown), or NaN when it names none. */
  idOf(shown: string): number {
    if (this.idPrefix === undefined) return /^\d+$/.test(shown) ? Number(shown) : Number.NaN;
    const digits = shown.startsWith(this.idPrefix) ? shown.slice(this.idPrefix.length) : '';
    // Exactly as shown: with a prefix the id is a string, and `w-07` is not `w-7`.
    return /^[1-9]\d*$/.test(digits) ? Number(digits) : Number.NaN;
  }

  /** The record the API returns for a stored website. */
  record(website: StoredWebsite): WebsiteRecord {
    return { ...toRecord(website), id: this.shownId(website.id) };
  }

  get(id: number): StoredWebsite | undefined {
    return this.#websites.get(id);
  }

  /** Every website, by id ascending. The objects are live: callers copy before handing them out. */
  all(): StoredWebsite[] {
    return [...this.#byId()];
  }

  #byId(): readonly StoredWebsite[] {
    this.#sorted ??= [...this.#websites.values()].sort((a, b) => a.id - b.id);
    return this.#sorted;
  }

  isTaken(domain: string): boolean {
    return this.#taken.has(domain) || this.#domains.has(domain);
  }

  /** `asStored`: the domain kept as given and nothing validated (a record from the web UI). */
  store(form: FormInput, { asStored = false } = {}): WriteResult {
    const input: FormInput = { ...form };
    if (typeof input.domain === 'string' && !asStored) input.domain = canonicalDomain(input.domain);
    const atPlanLimit = this.maxWebsites !== undefined && this.#websites.size >= this.maxWebsites;
    const errors = asStored ? {} : validateStore(input, { isTaken: (d) => this.isTaken(d), atPlanLimit });
    if (hasErrors(errors)) return { kind: 'invalid', errors };
    const at = formatTimestamp(this.#now());
    const website: StoredWebsite = {
      id: this.#nextId++,
      domain: input.domain ?? '',
      privacy: input.privacy == null ? null : (Number(input.privacy) as Privacy),
      email: input.email == null ? null : flag(input.email, 0),
      exclude_bots: flag(input.exclude_bots, 1),
      exclude_params: input.exclude_params ?? null,
      exclude_ips: input.exclude_ips ?? null,
      password: input.password ?? null,
      favorited_at: phpTruthy(input.favorite) ? at : null,
      created_at: at,
      updated_at: at,
    };
    this.#websites.set(website.id, website);
    this.#domains.add(website.domain);
    this.#sorted = undefined;
    return { kind: 'ok', website };
  }

  /** Validation comes first, as in the service (its form request runs before the lookup). */
  update(id: number, input: FormInput): WriteResult {
    const website = this.#websites.get(id);
    const context = website && { privacy: website.privacy, hasPassword: toRecord(website).password };
    const errors = validateUpdate(input, context);
    if (hasErrors(errors)) return { kind: 'invalid', errors };
    if (!website) return { kind: 'not-found' };
    const next = { ...website };
    if ('privacy' in input) next.privacy = Number(input.privacy) as Privacy;
    if ('password' in input) next.password = input.password ?? null;
    if ('email' in input) next.email = input.email == null ? null : flag(input.email, 0);
    if ('exclude_bots' in input) next.exclude_bots = flag(input.exclude_bots, 1);
    if ('exclude_params' in input) next.exclude_params = input.exclude_params ?? null;
    if ('exclude_ips' in input) next.exclude_ips = input.exclude_ips ?? null;
    if ('favorite' in input)
      next.favorited_at = phpTruthy(input.favorite) ? formatTimestamp(this.#now()) : null;
    // Eloquent only touches updated_at when an attribute really changed.
    const dirty = (Object.keys(next) as Array<keyof StoredWebsite>).some((k) => next[k] !== website[k]);
    if (dirty) next.updated_at = formatTimestamp(this.#now());
    this.#websites.set(id, next);
    this.#sorted = undefined;
    return { kind: 'ok', website: next };
  }

  remove(id: number): boolean {
    const website = this.#websites.get(id);
    if (!website) return false;
    this.#websites.delete(id);
    this.#domains.delete(website.domain);
    this.#sorted = undefined;
    return true;
  }

  /** The list endpoint's filter and order (pagination is applied by the caller). */
  query(options: ListFilter): readonly StoredWebsite[] {
    const needle = phpTruthy(options.search) ? (options.search ?? '').toLowerCase() : undefined;
    const favorite =
      options.favorite != null && isPhpInteger(options.favorite) ? Number(options.favorite) : undefined;
    const direction = options.sort === 'asc' ? 1 : -1;
    // The order the tool lists in: served from the kept order, with no copy or sort per page.
    if (needle === undefined && favorite === undefined && options.sortBy === 'id' && direction === 1) {
      return this.#byId();
    }
    return this.all()
      .filter((w) => needle === undefined || w.domain.toLowerCase().includes(needle))
      .filter((w) => favorite === undefined || (w.favorited_at !== null) === (favorite !== 0))
      .sort(
        (a, b) => direction * (options.sortBy === 'domain' ? compareText(a.domain, b.domain) : a.id - b.id),
      );
  }
}

export interface ListFilter {
  search: string | null;
  favorite: string | null;
  sortBy: 'id' | 'domain';
  sort: 'asc' | 'desc';
}

/** Error for direct (non-HTTP) writes that the service would have refused. */
export class SimulatorValidationError extends Error {
  readonly errors: FieldErrors;
  constructor(errors: FieldErrors) {
    super(summarizeErrors(errors));
    this.name = 'SimulatorValidationError';
    this.errors = errors;
  }
}
