import { createHmac, randomBytes } from 'node:crypto';
import type { SettingField, WritableField } from '../model.js';

// The state remembers what the service will not tell us: fingerprints of write-only values we last
// applied, and the service's own form of values it normalised. A fingerprint is an HMAC keyed by a
// random per-file salt, so the file never holds a secret in clear and is useless to compare across files.

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

export interface StateData {
  version: typeof STATE_VERSION;
  base_url: string;
  salt: string;
  /** Keyed by the website's id (as a string: JSON object keys). */
  websites: Record<string, WebsiteState>;
}

export function emptyState(baseUrl: string): StateData {
  return { version: STATE_VERSION, base_url: baseUrl, salt: randomBytes(16).toString('hex'), websites: {} };
}

export function fingerprint(state: Pick<StateData, 'salt'>, field: WritableField, value: unknown): string {
  return createHmac('sha256', state.salt)
    .update(`${field}\0${JSON.stringify(value)}`)
    .digest('base64url');
}

/** The fingerprint recorded for a website's field, or undefined when we never applied it. */
export function recordedFingerprint(state: StateData, id: number, field: WritableField): string | undefined {
  return state.websites[String(id)]?.fingerprints[field];
}

export function recordApplied(
  state: StateData,
  website: { id: number; domain: string },
  field: WritableField,
  value: unknown,
): void {
  const entry = entryFor(state, website);
  entry.fingerprints[field] = fingerprint(state, field, value);
}

export function recordNormalised(
  state: StateData,
  website: { id: number; domain: string },
  field: SettingField,
  sent: unknown,
  shown: unknown,
): void {
  const entry = entryFor(state, website);
  entry.normalised ??= {};
  entry.normalised[field] = { sent: fingerprint(state, field, sent), shown: JSON.stringify(shown) };
}

/** Forgets a normalisation once the service shows exactly what we sent. */
export function clearNormalised(state: StateData, id: number, field: SettingField): void {
  const entry = state.websites[String(id)];
  if (entry?.normalised) delete entry.normalised[field];
}

/** True when `shown` is the service's known form of the desired value `sent`. */
export function isKnownNormalisation(
  state: StateData,
  id: number,
  field: SettingField,
  sent: unknown,
  shown: unknown,
): boolean {
  const known = state.websites[String(id)]?.normalised?.[field];
  return (
    known !== undefined &&
    known.sent === fingerprint(state, field, sent) &&
    known.shown === JSON.stringify(shown)
  );
}

export function forgetWebsite(state: StateData, id: number): void {
  delete state.websites[String(id)];
}

function entryFor(state: StateData, website: { id: number; domain: string }): WebsiteState {
  const key = String(website.id);
  const existing = state.websites[key];
  if (existing && existing.domain === website.domain) return existing;
  // A new id, or an id now carrying another domain: nothing we knew applies to it.
  const fresh: WebsiteState = { domain: website.domain, fingerprints: {} };
  state.websites[key] = fresh;
  return fresh;
}
