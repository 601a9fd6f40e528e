// Which record of the account each listed website is. Records the service holds separately stay
// distinct: two records can share an identity (`dup.example.com.` and `DUP.example.com`,
// `bücher.example` and its punycode, `www.legacy.example.com` stored before the service's `www.` rule
// beside `legacy.example.com`), and picking one of them by listing order would leave the other to be
// deleted. So an entry takes, in order over the whole manifest: the record stored under the name as
// written, then under the domain the service would store, then a `www.` record that answers to that
// domain today; among equals the one stored exactly in that spelling, then the lowest id. A record no
// entry takes but that shares a name with a listed website is its twin: never deleted.
import { domainKey } from './domain.js';
import { compareIds } from './identity.js';
import { serviceStoredDomain } from './service-domain.js';
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
}

/** A record's names: the key it is stored under, and what the service would store for it today. */
function namesOf(record: RemoteWebsite): [string, string] {
  const key = domainKey(record.domain);
  return [key, serviceStoredDomain(key)];
}

function rank(a: RemoteWebsite, b: RemoteWebsite): number {
  const exact = (r: RemoteWebsite) => (r.domain === domainKey(r.domain) ? 0 : 1);
  return exact(a) - exact(b) || compareIds(a.id, b.id);
}

function indexBy(records: readonly RemoteWebsite[], name: (r: RemoteWebsite) => string) {
  const index = new Map<string, RemoteWebsite[]>();
  for (const record of records) {
    const key = name(record);
    const list = index.get(key);
    if (list) list.push(record);
    else index.set(key, [record]);
  }
  for (const list of index.values()) list.sort(rank);
  return index;
}

export function matchWebsites(
  entries: readonly ListedName[],
  records: readonly RemoteWebsite[],
): WebsiteMatches {
  const byKey = indexBy(records, (r) => namesOf(r)[0]);
  const byStored = indexBy(
    records.filter((r) => namesOf(r)[0].startsWith('www.')),
    (r) => namesOf(r)[1],
  );
  const taken = new Map<number, RemoteWebsite>();
  const used = new Set<RemoteWebsite>();
  const tiers: Array<[Map<string, RemoteWebsite[]>, (e: ListedName) => string]> = [
    [byKey, (e) => e.writtenDomain ?? e.domain],
    [byKey, (e) => e.domain],
    [byStored, (e) => e.domain],
  ];
  for (const [index, name] of tiers) {
    entries.forEach((entry, i) => {
      if (taken.has(i)) return;
      const record = index.get(name(entry))?.find((r) => !used.has(r));
      if (record === undefined) return;
      taken.set(i, record);
      used.add(record);
    });
  }
  const listed = new Map<string, string>();
  entries.forEach((entry, i) => {
    for (const name of [entry.domain, entry.writtenDomain]) if (name) listed.set(name, entry.domain);
    const record = taken.get(i);
    if (record) for (const name of namesOf(record)) if (!listed.has(name)) listed.set(name, entry.domain);
  });
  return {
    recordOf: (index) => taken.get(index),
    isMatched: (record) => used.has(record),
    twinOf: (record) => {
      if (used.has(record)) return undefined;
      const [key, stored] = namesOf(record);
      return listed.get(key) ?? listed.get(stored);
    },
  };
}
