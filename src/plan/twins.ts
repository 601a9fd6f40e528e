// Records the service holds separately under one name for websites-sync (issue 19 §4): `Shop.example.com`
// stored before the service lower-cased names beside `shop.example.com`, `bücher.example` beside its
// punycode, `www.legacy.example.com` stored before the `www.` rule beside `legacy.example.com`. One rule
// for them all (model/matching.ts): the entry manages one, the other is its twin, never deleted; and
// when no entry names them, prune deletes none of them (which one is wanted is not for a tool to guess).
import {
  compareIds,
  type DesiredWebsite,
  type matchWebsites,
  type RemoteWebsite,
  websiteKey,
} from '../model/index.js';
import type { Plan } from './types.js';

/** The record a listed domain manages, indexed on first need (only a plan with a twin asks). */
export function managedRecords(listed: readonly DesiredWebsite[], remotes: ReturnType<typeof matchWebsites>) {
  let byDomain: Map<string, RemoteWebsite> | undefined;
  return (domain: string): RemoteWebsite | undefined => {
    if (byDomain === undefined) {
      byDomain = new Map();
      for (const [index, website] of listed.entries()) {
        const record = remotes.recordOf(index);
        if (record) byDomain.set(website.domain, record);
      }
    }
    return byDomain.get(domain);
  };
}

interface Twin {
  record: RemoteWebsite;
  /** The listed domain it shares a name with. */
  listed: string;
  /** The record that entry manages: the one stored exactly as its name, else the lowest id. */
  managed: RemoteWebsite | undefined;
}

/**
 * A record that shares a name with a listed website but is not the one the entry manages (the service
 * holds both: `Shop.example.com` beside `shop.example.com`, `www.legacy.example.com` beside
 * `legacy.example.com`): never changed or deleted, whatever prune says, and said so with the record
 * the entry does manage.
 */
export function keepTwin({ record, listed, managed }: Twin, prune: boolean, plan: Plan): void {
  if (!prune) plan.unmanaged.push(record.domain);
  const which = managed ? `website ${managed.id}, stored as ${managed.domain}` : 'the other record';
  // Names apart only in case, punycode or a trailing dot are one entry of the manifest: it cannot list both.
  const instead =
    managed && websiteKey(managed.domain) === websiteKey(record.domain)
      ? 'the manifest cannot name it apart; delete it in the web interface if it is not wanted'
      : 'list it as written to manage it, or delete it in the web interface';
  plan.warnings.push(
    `${record.domain} (id ${record.id}) is the same website as the listed ${listed} for websites-sync, but the service holds it separately: websites-sync manages ${which}, and never changes or deletes this one (${instead})`,
  );
}

/**
 * Records no entry takes that share one name (`Shop.example.com` beside `shop.example.com`, neither
 * listed): prune deletes none of them, and the plan says so once, with the record of lowest id.
 */
export function keepUnlistedTwins(record: RemoteWebsite, others: readonly RemoteWebsite[], plan: Plan): void {
  const group = [record, ...others].sort((a, b) => compareIds(a.id, b.id));
  if (group[0] !== record) return;
  const names = group.map((r) => `${r.domain} (id ${r.id})`);
  const two = names.length === 2;
  plan.warnings.push(
    `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are one website for websites-sync, held separately by the service: prune deletes ${two ? 'neither' : 'none of them'} (list the name to manage one of them; delete the ${two ? 'other' : 'others'} in the web interface if ${two ? 'it is' : 'they are'} not wanted)`,
  );
}
