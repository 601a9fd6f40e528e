import type { SettingField, WebsiteId, WritableField } from '../model/index.js';
import { byId, type PendingDeleteState, type ProtectedWebsite, type StateData } from './state.js';

// What the state remembers about a website's lifecycle, beyond fingerprints: that the manifest once
// protected it (so removing its entry does not expose it to prune), and since when it has been planned
// for deletion (delete_delay). Both are keyed by id, like the fingerprints.

/** What one run asks the state to remember; computed by the (pure) plan, written after the run. */
export interface LifecycleUpdate {
  protect: Array<{ id: WebsiteId; domain: string }>;
  unprotect: WebsiteId[];
  /** Every website planned for deletion in this run, due or not, and since when; replaces the list. */
  deleting: Array<{ id: WebsiteId; domain: string; since: string }>;
  /**
   * Fingerprints the plan recognised under the key of an API key used before a rotation, made again
   * with the current key: recorded by the next real run, so that the previous key is needed no more.
   */
  rekeyed?: RekeyedFingerprint[];
}

/** A recorded fingerprint (or, `normalised`, a normalisation's `sent`) and the same one under the current key. */
export interface RekeyedFingerprint {
  id: WebsiteId;
  field: WritableField;
  fingerprint: string;
  normalised?: true;
}

export function isProtected(state: StateData, id: WebsiteId): boolean {
  return state.protected?.[String(id)] !== undefined;
}

/** Since when the website has been planned for deletion, or undefined when it was not in the last run. */
export function pendingSince(state: StateData, id: WebsiteId): string | undefined {
  return state.pending_deletes?.[String(id)]?.since;
}

export function markProtected(state: StateData, website: { id: WebsiteId; domain: string }): void {
  state.protected = byId(state.protected);
  state.protected[String(website.id)] = { domain: website.domain };
}

/** Records the update; returns whether anything changed (so an idle run does not rewrite the file). */
export function recordLifecycle(state: StateData, update: LifecycleUpdate): boolean {
  const before = JSON.stringify([state.protected, state.pending_deletes]);
  const protectedSites = byId(state.protected);
  for (const { id, domain } of update.protect) protectedSites[String(id)] = { domain };
  for (const id of update.unprotect) delete protectedSites[String(id)];
  const pending = byId<PendingDeleteState>();
  for (const { id, domain, since } of update.deleting) pending[String(id)] = { domain, since };
  setOrDrop(state, 'protected', protectedSites);
  setOrDrop(state, 'pending_deletes', pending);
  const rekeyed = recordRekeyed(state, update.rekeyed ?? []);
  return JSON.stringify([state.protected, state.pending_deletes]) !== before || rekeyed;
}

/** The fingerprints recognised under a previous key, recorded under the current one. */
function recordRekeyed(state: StateData, rekeyed: readonly RekeyedFingerprint[]): boolean {
  let changed = false;
  for (const { id, field, fingerprint, normalised } of rekeyed) {
    const entry = state.websites[String(id)];
    if (normalised) {
      const known = entry?.normalised?.[field as SettingField];
      if (!known || known.sent === fingerprint) continue;
      known.sent = fingerprint;
    } else {
      if (!entry || entry.fingerprints[field] === undefined || entry.fingerprints[field] === fingerprint)
        continue;
      entry.fingerprints[field] = fingerprint;
    }
    changed = true;
  }
  return changed;
}

function setOrDrop<K extends 'protected' | 'pending_deletes'>(
  state: StateData,
  key: K,
  value: NonNullable<StateData[K]>,
): void {
  if (Object.keys(value).length > 0) state[key] = value;
  else delete state[key];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const validProtected = (entry: unknown): entry is ProtectedWebsite =>
  isRecord(entry) && typeof entry.domain === 'string';

const validPending = (entry: unknown): entry is PendingDeleteState =>
  isRecord(entry) &&
  typeof entry.domain === 'string' &&
  typeof entry.since === 'string' &&
  !Number.isNaN(Date.parse(entry.since));

/**
 * Checked entry by entry: a malformed entry is dropped alone. A dropped protection means "unknown",
 * as for a lost state file (README "Protection"); a dropped pending delete starts its delay again.
 */
export function readLifecycleEntries(
  data: Record<string, unknown>,
): Pick<StateData, 'protected' | 'pending_deletes'> {
  const keep = <T>(raw: unknown, valid: (entry: unknown) => entry is T): Record<string, T> | undefined => {
    if (!isRecord(raw)) return undefined;
    // Any key: ids are opaque strings (`w-7`, `01`), whatever the service's format.
    const kept = Object.entries(raw).filter(([, entry]) => valid(entry));
    return kept.length > 0 ? byId(Object.fromEntries(kept) as Record<string, T>) : undefined;
  };
  const protectedSites = keep(data.protected, validProtected);
  const pending = keep(data.pending_deletes, validPending);
  return {
    ...(protectedSites ? { protected: protectedSites } : {}),
    ...(pending ? { pending_deletes: pending } : {}),
  };
}
