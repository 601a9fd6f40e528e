import {
  canonicalDomain,
  compareIds,
  compileIgnore,
  type ListedName,
  matchWebsites,
  type RemoteWebsite,
  storedKey,
  websiteKey,
} from '../model/index.js';

// Which entries an exported manifest holds, so that it means the account again: read back, every
// entry takes the record it was written for (`matchWebsites`, the plan's own matching), and every other
// record is a twin of a listed website or ignored, so that nothing is created or deleted, prune or not.

export interface ExportedEntry {
  /** The domain as the entry writes it. */
  name: string;
  record: RemoteWebsite;
}

export interface ExportedAccount {
  /** In the order written (by name). */
  entries: ExportedEntry[];
  /** Records no entry takes that share a name with a listed website: never deleted. */
  twins: { record: RemoteWebsite; listed: string }[];
  /** Records no entry can name (the service refuses their names today), with the pattern that keeps them. */
  ignored: { record: RemoteWebsite; pattern: string }[];
  /** Records neither listed, twins nor ignorable: prune would delete them. */
  unlisted: RemoteWebsite[];
}

interface Candidate {
  name: string;
  listed: ListedName;
  /** What the manifest tells entries apart by (the name as written, canonical). */
  written: string;
}

function candidate(name: string): Candidate | undefined {
  const result = canonicalDomain(name);
  if (!('domain' in result)) return undefined;
  const listed = { domain: result.domain, writtenDomain: result.written };
  return { name, listed, written: result.written ?? result.domain };
}

/** The names a record can be listed under, best first: as stored, then as the service stores it today. */
function namesOf(record: RemoteWebsite): Candidate[] {
  const names = new Set([websiteKey(record.domain), storedKey(record.domain)]);
  return [...names].flatMap((name) => candidate(name) ?? []);
}

const byName = (a: Candidate, b: Candidate) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function exportedAccount(records: readonly RemoteWebsite[]): ExportedAccount {
  const names = new Map(records.map((record) => [record, namesOf(record)]));
  // One entry per name as written (two are a manifest error); a record's own spelling first.
  const listed = new Map<string, Candidate>();
  const offer = (offered: Candidate | undefined): void => {
    const known = offered && listed.get(offered.written);
    if (offered && (!known || (known.name !== known.written && offered.name === offered.written))) {
      listed.set(offered.written, offered);
    }
  };
  const ranked = [...records].sort((a, b) => compareIds(a.id, b.id));
  for (const record of ranked) offer(names.get(record)?.[0]);
  let order = [...listed.values()].sort(byName);
  let matches = matchWebsites(
    order.map((c) => c.listed),
    records,
  );
  // A record no entry took is offered under its next name, and all are matched again, in written order.
  for (let round = 1; ; round++) {
    const before = listed.size;
    for (const record of ranked) if (!matches.isMatched(record)) offer(names.get(record)?.[round]);
    if (listed.size === before) break;
    order = [...listed.values()].sort(byName);
    matches = matchWebsites(
      order.map((c) => c.listed),
      records,
    );
  }
  // An entry that took no record would be created; leaving it out changes no other entry's match.
  const kept = order.filter((_, index) => matches.recordOf(index) !== undefined);
  const entries = order.flatMap((c, index) => {
    const record = matches.recordOf(index);
    return record ? [{ name: c.name, record }] : [];
  });
  return {
    entries,
    ...leftOver(
      records,
      matches,
      kept.map((c) => c.written),
    ),
  };
}

/** The records no entry takes: twins, ignored by an exact pattern, or (when neither works) unlisted. */
function leftOver(
  records: readonly RemoteWebsite[],
  matches: ReturnType<typeof matchWebsites>,
  listedNames: readonly string[],
): Omit<ExportedAccount, 'entries'> {
  const twins: ExportedAccount['twins'] = [];
  const ignored: ExportedAccount['ignored'] = [];
  const unlisted: RemoteWebsite[] = [];
  for (const record of records) {
    if (matches.isMatched(record)) continue;
    const listed = matches.twinOf(record);
    if (listed !== undefined) {
      twins.push({ record, listed });
      continue;
    }
    const pattern = keepingPattern(record, listedNames);
    if (pattern !== undefined) ignored.push({ record, pattern });
    else unlisted.push(record);
  }
  return { twins, ignored, unlisted };
}

/**
 * An `ignore` pattern that keeps `record` and matches no listed name (that would be a manifest error):
 * its name with every glob character escaped, else (when reading the name as a pattern would change
 * it: a scheme, a `www.`) with every character but letters, digits, dots and hyphens as `?`.
 */
function keepingPattern(record: RemoteWebsite, listedNames: readonly string[]): string | undefined {
  const key = websiteKey(record.domain);
  // A record without a name (`""`, blanks): no pattern can name it (an empty one is no pattern at all).
  if (key === '') return undefined;
  const exact = key.replace(/[\\*?[\]{}()!+@|]/g, '\\$&');
  const shape = key.replace(/[^a-z0-9.-]/g, '?').replace(/^www\./, 'www?');
  return [exact, shape].find((pattern) => {
    const rules = compileIgnore([pattern]);
    return rules.match(record.domain) === 0 && listedNames.every((name) => rules.match(name) === -1);
  });
}
