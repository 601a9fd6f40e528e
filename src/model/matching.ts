// Which record of the account each listed website is. Records the service holds separately stay
// distinct: two records can share an identity (`dup.example.com.` and `DUP.example.com`,
// `bücher.example` and its punycode, `www.legacy.example.com` stored before the service's `www.` rule
// beside `legacy.example.com`), and picking one of them by listing order would leave the other to be
// deleted. So an entry takes, in order over the whole manifest: the record stored under the name as
// written, then under the domain the service would store, then a record stored under another name
// (`www.`, `https://`) that answers to that domain today; among equals the one stored exactly in that
// spelling, then the lowest id. A record no entry takes but that shares a name with a listed website
// is its twin: never deleted; nor are records no entry takes that share a name with each other.
import { domainKey, storedKeyOf } from './domain.js';
import { compareIds } from './identity.js';
import type { RemoteWebsite } from './types.js';

export interface ListedName {
  /** The domain the service stores for the entry. */
  domain: string;
  /** The entry's name before the service's `www.` rule, when it differs. */
  writtenDomain?: string | undefined;
}

export interface WebsiteMatches {
  /** The record of entry `index`, if any. */
  recordOf(index: number): RemoteWebsite | undefined;
  /** Whether some entry took the record. */
  isMatched(record: RemoteWebsite): boolean;
  /** For a record no entry took: the listed domain it shares a name with, or undefined. */
  twinOf(record: RemoteWebsite): string | undefined;
  /**
   * For a record no entry took: the other records no entry took that share its name (`Shop.example.com`
   * beside `shop.example.com`, neither listed), lowest id first; none for most records.
   */
  unlistedTwinsOf(record: RemoteWebsite): RemoteWebsite[];
}

/** What the service would store for a record's key today (the key itself unless a rule applies). */
function storedName(key: string): string {
  return key.startsWith('www.') || key.includes('http') ? storedKeyOf(key) : key;
}

/** Records by a name, several only where names are shared: ranked, the best first. */
class NameIndex {
  readonly #byName = new Map<string, RemoteWebsite | RemoteWebsite[]>();

  add(name: string, record: RemoteWebsite): void {
    const known = this.#byName.get(name);
    if (known === undefined) this.#byName.set(name, record);
    else if (Array.isArray(known)) known.push(record);
    else this.#byName.set(name, [known, record]);
  }

  rank(order: (a: RemoteWebsite, b: RemoteWebsite) => number): void {
    for (const known of this.#byName.values()) if (Array.isArray(known)) known.sort(order);
  }

  /** Every record under `name`, ranked. */
  all(name: string): RemoteWebsite[] {
    const known = this.#byName.get(name);
    if (known === undefined) return [];
    return Array.isArray(known) ? known : [known];
  }

  /** The best record under `name` that is not `used`. */
  best(name: string, used: ReadonlySet<RemoteWebsite>): RemoteWebsite | undefined {
    const known = this.#byName.get(name);
    if (known === undefined) return undefined;
    if (!Array.isArray(known)) return used.has(known) ? undefined : known;
    return known.find((record) => !used.has(record));
  }
}

/**
 * Which record each entry takes. Each record's names are worked out once (this runs for every website
 * of a 100,000-website account), and the names of listed websites only when a record is left over.
 */
export function matchWebsites(
  entries: readonly ListedName[],
  records: readonly RemoteWebsite[],
): WebsiteMatches {
  const keys = new Map<RemoteWebsite, string>();
  const byKey = new NameIndex();
  const byStored = new NameIndex();
  for (const record of records) {
    const key = domainKey(record.domain);
    keys.set(record, key);
    byKey.add(key, record);
    // Stored under another name than the service would store today (a leading `www.`, a scheme): a
    // record stored before the service's rule, which the entry naming today's form manages.
    const stored = storedName(key);
    if (stored !== key) byStored.add(stored, record);
  }
  const exact = (r: RemoteWebsite) => (r.domain === keys.get(r) ? 0 : 1);
  const rank = (a: RemoteWebsite, b: RemoteWebsite) => exact(a) - exact(b) || compareIds(a.id, b.id);
  byKey.rank(rank);
  byStored.rank(rank);
  const taken = new Map<number, RemoteWebsite>();
  const used = new Set<RemoteWebsite>();
  const tiers: Array<[NameIndex, (e: ListedName) => string]> = [
    [byKey, (e) => e.writtenDomain ?? e.domain],
    [byKey, (e) => e.domain],
    [byStored, (e) => e.domain],
  ];
  for (const [index, name] of tiers) {
    entries.forEach((entry, i) => {
      if (taken.has(i)) return;
      const record = index.best(name(entry), used);
      if (record === undefined) return;
      taken.set(i, record);
      used.add(record);
    });
  }
  let listed: Map<string, string> | undefined;
  const listedNames = (): Map<string, string> => {
    listed ??= listedNamesOf(entries, taken, keys);
    return listed;
  };
  let unlisted: NameIndex | undefined;
  const unlistedByName = (): NameIndex => {
    unlisted ??= unlistedIndex(records, used, keys);
    return unlisted;
  };
  return {
    recordOf: (index) => taken.get(index),
    isMatched: (record) => used.has(record),
    twinOf: (record) => {
      if (used.has(record)) return undefined;
      const key = keys.get(record) ?? domainKey(record.domain);
      return listedNames().get(key) ?? listedNames().get(storedName(key));
    },
    unlistedTwinsOf: (record) => {
      if (used.has(record)) return [];
      const name = storedName(keys.get(record) ?? domainKey(record.domain));
      return unlistedByName()
        .all(name)
        .filter((other) => other !== record);
    },
  };
}

/** The records no entry took, by the name the service would store them under today, lowest id first. */
function unlistedIndex(
  records: readonly RemoteWebsite[],
  used: ReadonlySet<RemoteWebsite>,
  keys: ReadonlyMap<RemoteWebsite, string>,
): NameIndex {
  const index = new NameIndex();
  for (const record of records) {
    if (!used.has(record)) index.add(storedName(keys.get(record) ?? domainKey(record.domain)), record);
  }
  index.rank((a, b) => compareIds(a.id, b.id));
  return index;
}

/** Every name a listed website goes by (its domain, its written name, its record's names) → its domain. */
function listedNamesOf(
  entries: readonly ListedName[],
  taken: ReadonlyMap<number, RemoteWebsite>,
  keys: ReadonlyMap<RemoteWebsite, string>,
): Map<string, string> {
  const listed = new Map<string, string>();
  entries.forEach((entry, i) => {
    for (const name of [entry.domain, entry.writtenDomain]) if (name) listed.set(name, entry.domain);
    const record = taken.get(i);
    const key = record && keys.get(record);
    if (key === undefined) return;
    for (const name of [key, storedName(key)]) if (!listed.has(name)) listed.set(name, entry.domain);
  });
  return listed;
}
