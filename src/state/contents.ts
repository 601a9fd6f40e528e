import { canonicalBaseUrl } from './file.js';
import type { StoreContents } from './store-types.js';

// `state migrate` copies some accounts into a store that may hold others (a PostgreSQL schema shared by
// several accounts, a backup file of several): what it replaces, and checks, is the copied accounts'.

/** The accounts (canonical base URLs) `contents` holds a state or backups of. */
export function accountsOf(contents: StoreContents): Set<string> {
  return new Set([...contents.states, ...contents.backups].map((held) => canonicalBaseUrl(held.base_url)));
}

/** The part of `contents` that is of `accounts` (as accountsOf spells them). */
export function ofAccounts(contents: StoreContents, accounts: Set<string>): StoreContents {
  const of = (held: { base_url: string }) => accounts.has(canonicalBaseUrl(held.base_url));
  return { states: contents.states.filter(of), backups: contents.backups.filter(of) };
}
