import {
  type DesiredWebsite,
  PRIVACY_NAMES,
  type Privacy,
  type RemoteWebsite,
  SETTING_FIELDS,
  type SettingField,
  sameValue,
  type WebsiteSettings,
} from '../model/index.js';
import {
  fingerprintMatch,
  isKnownNormalisation,
  recordedFingerprint,
  type StateData,
} from '../state/index.js';
import { type FieldChange, PASSWORD_SET, type Plan, SENSITIVE, type Shown, UNREADABLE } from './types.js';

// Equality of settings, apart from identity (model/identity.ts): given that a remote record IS the desired website,
// does each field already hold the desired value?

export interface FieldVerdict {
  differs: boolean;
  /** The current value as shown in plans. */
  from: Shown;
  /** Not returned by the service and never recorded: a send would be a first one, not a correction. */
  unknown?: boolean;
}

export function showSetting(field: SettingField, value: WebsiteSettings[SettingField] | null): Shown {
  if (value === null) return null;
  return field === 'privacy' ? PRIVACY_NAMES[value as Privacy] : value;
}

export function compareSetting(
  field: SettingField,
  desired: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
): FieldVerdict {
  const current = remote[field];
  const unknown = current === undefined && recordedFingerprint(state, remote.id, field) === undefined;
  return {
    differs: settingDiffers(field, desired, remote, state),
    from: current === undefined ? UNREADABLE : showSetting(field, current),
    ...(unknown ? { unknown } : {}),
  };
}

/** The `differs` of compareSetting alone: it runs for every field of every website, so it allocates nothing. */
export function settingDiffers(
  field: SettingField,
  desired: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
): boolean {
  const wanted = desired[field];
  const current = remote[field];
  if (current === undefined) {
    // The service does not return this field: only our fingerprint of what we last sent can tell.
    const recorded = recordedFingerprint(state, remote.id, field);
    // Never sent by websites-sync and not declared: left as the service holds it (issue 19 §10), since
    // sending the default would wipe a value nobody can see. Declared, it is sent (and replaces it).
    if (recorded === undefined && desired.undeclared?.includes(field)) return false;
    // Recorded under the current key or, after a rotation, a previous one (see rekey.ts): the same value.
    return fingerprintMatch(state, field, wanted, recorded) === undefined;
  }
  return !(sameValue(wanted, current) || isKnownNormalisation(state, remote.id, field, wanted, current));
}

/**
 * Counts, in `plan.keptWriteOnly`, the write-only fields of a listed website left as the service holds
 * them: not declared, not shown by the service, never sent by websites-sync (see settingDiffers).
 * Runs for every listed website: allocates nothing unless one is kept.
 */
export function countKeptWriteOnly(
  desired: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
  plan: Plan,
): void {
  for (const field of desired.undeclared ?? NONE) {
    if (remote[field] !== undefined || desired.ignoreFields?.includes(field)) continue;
    if (recordedFingerprint(state, remote.id, field) !== undefined) continue;
    plan.keptWriteOnly ??= {};
    plan.keptWriteOnly[field] = (plan.keptWriteOnly[field] ?? 0) + 1;
  }
}

const NONE: readonly SettingField[] = [];

/** Whether the password must be (re)sent: unknown to us, changed, or missing on the service. */
export function comparePassword(
  desired: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
): FieldVerdict {
  const from = remote.hasPassword === false ? null : SENSITIVE;
  if (desired.privacy !== 2 || desired.password === undefined) return { differs: false, from };
  if (remote.hasPassword === false) return { differs: true, from };
  const known = recordedFingerprint(state, remote.id, 'password');
  const differs = fingerprintMatch(state, 'password', desired.password, known) === undefined;
  return { differs, from, ...(known === undefined ? { unknown: true } : {}) };
}

/** What a delete destroys, as last read: every setting the service returns, and whether a password is set. */
export function destroyedSettings(record: RemoteWebsite): FieldChange[] {
  const fields: FieldChange[] = [];
  for (const field of SETTING_FIELDS) {
    const value = record[field];
    // An empty list destroys nothing worth reading.
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    fields.push({ field, from: showSetting(field, value), to: null });
  }
  if (record.hasPassword) fields.push({ field: 'password', from: PASSWORD_SET, to: null });
  return fields;
}
