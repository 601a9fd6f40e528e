import { createHmac, randomBytes } from 'node:crypto';
import type { SettingField, WebsiteId, WritableField } from '../model/index.js';

// The state remembers what the service will not tell us: fingerprints of write-only values we last
// applied, and the service's own form of values it normalised. A fingerprint is an HMAC whose key is
// derived from a secret the file does not hold (the API key) and a random per-file salt: the file never
// holds a secret in clear, a leaked file cannot be brute-forced without the key, and fingerprints are
// useless to compare across files. A new key makes every fingerprint unknown (resent once), unless the
// run is given the key before it (`previousKeys`, as Rails' secret rotations or Vault's previous keys):
// fingerprints made with it are still recognised, and recorded again under the current key.

export const STATE_VERSION = 1;

export interface NormalisedValue {
  /** Fingerprint of the desired value we sent. */
  sent: string;
  /** What the service showed instead, as JSON. */
  shown: string;
}

export interface WebsiteState {
  domain: string;
  /** field → fingerprint of the value last applied. */
  fingerprints: Partial<Record<WritableField, string>>;
  normalised?: Partial<Record<SettingField, NormalisedValue>>;
}

export interface ProtectedWebsite {
  domain: string;
}

export interface PendingDeleteState {
  domain: string;
  /** ISO 8601: the first run of an unbroken series that planned the delete. */
  since: string;
}

export interface StateData {
  version: typeof STATE_VERSION;
  base_url: string;
  salt: string;
  /** The HMAC key (fingerprintKey of the secret and the salt): held in memory, never written. */
  key: string;
  /**
   * The HMAC keys of API keys used before a rotation (fingerprintKey of each one's secret and this
   * salt): fingerprints made with them are recognised, never made. Held in memory, never written.
   */
  previousKeys?: readonly string[];
  /** Keyed by the website's id (as a string: JSON object keys). */
  websites: Record<string, WebsiteState>;
  /** Websites a manifest protected (`protect: true`), by id: never deleted until one says `protect: false`. */
  protected?: Record<string, ProtectedWebsite>;
  /** Websites planned for deletion, by id, and since when (`delete_delay`). */
  pending_deletes?: Record<string, PendingDeleteState>;
}

/** The HMAC key of fingerprints: the secret (derived from the API key) keyed with the file's salt. */
export function fingerprintKey(secret: string, salt: string): string {
  return createHmac('sha256', secret).update(`websites-sync fingerprints\0${salt}`).digest('base64url');
}

export function emptyState(baseUrl: string, secret = ''): StateData {
  const salt = randomBytes(16).toString('hex');
  return {
    version: STATE_VERSION,
    base_url: baseUrl,
    salt,
    key: fingerprintKey(secret, salt),
    websites: byId(),
  };
}

/**
 * A copy of a record keyed by website id, without a prototype: ids are opaque strings, and one spelled
 * `__proto__` or `constructor` must be a key like any other (on a plain object the first would be lost
 * on writing and the second found where nothing was recorded).
 */
export function byId<T>(entries: Readonly<Record<string, T>> = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

/**
 * Fingerprints already computed, per state object: a plan compares every website's write-only fields,
 * and most websites share a few values (no excluded parameters, the same list), so an HMAC per
 * distinct value instead of per website. Frozen values (the manifest's lists, shared between websites)
 * are also known by identity, which spares serialising them. It lives and dies with its state object.
 */
interface Computed {
  key: string;
  byText: Map<string, string>;
  byFrozen: WeakMap<object, Map<WritableField, string>>;
}
const computed = new WeakMap<object, Computed>();

export function fingerprint(state: Pick<StateData, 'key'>, field: WritableField, value: unknown): string {
  let cache = computed.get(state);
  if (cache?.key !== state.key) {
    cache = { key: state.key, byText: new Map(), byFrozen: new WeakMap() };
    computed.set(state, cache);
  }
  const frozen = typeof value === 'object' && value !== null && Object.isFrozen(value) ? value : undefined;
  const known = frozen && cache.byFrozen.get(frozen)?.get(field);
  if (known !== undefined) return known;
  const text = `${field}\0${JSON.stringify(value)}`;
  let result = cache.byText.get(text);
  if (result === undefined) {
    result = createHmac('sha256', state.key).update(text).digest('base64url');
    cache.byText.set(text, result);
  }
  if (frozen) {
    const byField = cache.byFrozen.get(frozen) ?? new Map<WritableField, string>();
    byField.set(field, result);
    cache.byFrozen.set(frozen, byField);
  }
  return result;
}

/** The state as written: without the HMAC keys, which are held in memory only. */
export function storedPart(state: StateData): Omit<StateData, 'key' | 'previousKeys'> {
  const { key: _key, previousKeys: _previous, ...stored } = state;
  return stored;
}

/** The state keyed also with the secrets of API keys used before a rotation (see previousKeys). */
export function withPreviousSecrets(state: StateData, secrets: readonly string[] | undefined): StateData {
  const keys = (secrets ?? [])
    .map((secret) => fingerprintKey(secret, state.salt))
    .filter((k) => k !== state.key);
  if (keys.length > 0) state.previousKeys = keys;
  else delete state.previousKeys;
  return state;
}

/**
 * How a recorded fingerprint stands to `value`: made with the current key (`current`), with the key of
 * an API key used before a rotation (`previous`: the same value, to be recorded again under the current
 * key), or not of this value (undefined). An HMAC under any key we hold is proof enough that the value
 * recorded is this one: a changed value matches none of them.
 */
export function fingerprintMatch(
  state: Pick<StateData, 'key' | 'previousKeys'>,
  field: WritableField,
  value: unknown,
  recorded: string | undefined,
): 'current' | 'previous' | undefined {
  if (recorded === undefined) return undefined;
  if (recorded === fingerprint(state, field, value)) return 'current';
  for (const key of state.previousKeys ?? []) {
    if (recorded === fingerprint(previousHolder(state, key), field, value)) return 'previous';
  }
  return undefined;
}

/** One object per previous key and state, so that fingerprint's cache serves it too. */
const holders = new WeakMap<object, Map<string, { key: string }>>();
function previousHolder(state: object, key: string): { key: string } {
  let byKey = holders.get(state);
  if (!byKey) {
    byKey = new Map();
    holders.set(state, byKey);
  }
  let holder = byKey.get(key);
  if (!holder) {
    holder = { key };
    byKey.set(key, holder);
  }
  return holder;
}

/** The fingerprint recorded for a website's field, or undefined when we never applied it. */
export function recordedFingerprint(
  state: StateData,
  id: WebsiteId,
  field: WritableField,
): string | undefined {
  return state.websites[String(id)]?.fingerprints[field];
}

export function recordApplied(
  state: StateData,
  website: { id: WebsiteId; domain: string },
  field: WritableField,
  value: unknown,
): void {
  const entry = entryFor(state, website);
  entry.fingerprints[field] = fingerprint(state, field, value);
}

export function recordNormalised(
  state: StateData,
  website: { id: WebsiteId; domain: string },
  field: SettingField,
  sent: unknown,
  shown: unknown,
): void {
  const entry = entryFor(state, website);
  entry.normalised ??= {};
  entry.normalised[field] = { sent: fingerprint(state, field, sent), shown: JSON.stringify(shown) };
}

/** Forgets a normalisation once the service shows exactly what we sent. */
export function clearNormalised(state: StateData, id: WebsiteId, field: SettingField): void {
  const entry = state.websites[String(id)];
  if (entry?.normalised) delete entry.normalised[field];
}

/** True when `shown` is the service's known form of the desired value `sent`. */
export function isKnownNormalisation(
  state: StateData,
  id: WebsiteId,
  field: SettingField,
  sent: unknown,
  shown: unknown,
): boolean {
  return normalisationMatch(state, id, field, sent, shown) !== undefined;
}

/** As fingerprintMatch, for a normalisation: whether `shown` is its known form, and under which key. */
export function normalisationMatch(
  state: StateData,
  id: WebsiteId,
  field: SettingField,
  sent: unknown,
  shown: unknown,
): 'current' | 'previous' | undefined {
  const known = state.websites[String(id)]?.normalised?.[field];
  if (known === undefined || known.shown !== JSON.stringify(shown)) return undefined;
  return fingerprintMatch(state, field, sent, known.sent);
}

/**
 * Forgets what the state holds of websites the account no longer has (deleted in the web interface,
 * or by a run killed before it saved): `listed` is the whole account, as a run read it. Protections
 * are kept (only `protect: false` lifts one). Returns whether anything was forgotten.
 */
export function forgetAbsent(state: StateData, listed: readonly { id: WebsiteId }[]): boolean {
  const present = new Set(listed.map((website) => String(website.id)));
  const absent = Object.keys(state.websites).filter((id) => !present.has(id));
  for (const id of absent) delete state.websites[id];
  return absent.length > 0;
}

export function forgetWebsite(state: StateData, id: WebsiteId): void {
  delete state.websites[String(id)];
  // Deleted: no longer pending. A protection is never forgotten here (a protected website is never deleted).
  if (state.pending_deletes) {
    delete state.pending_deletes[String(id)];
    if (Object.keys(state.pending_deletes).length === 0) delete state.pending_deletes;
  }
}

function entryFor(state: StateData, website: { id: WebsiteId; domain: string }): WebsiteState {
  const key = String(website.id);
  const existing = state.websites[key];
  if (existing && existing.domain === website.domain) return existing;
  // A new id, or an id now carrying another domain: nothing we knew applies to it.
  const fresh: WebsiteState = { domain: website.domain, fingerprints: {} };
  state.websites[key] = fresh;
  return fresh;
}
