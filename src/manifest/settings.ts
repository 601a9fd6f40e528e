// Settings read one field at a time, so an invalid field only makes that field unknown: the
// cross-field checks still run for everything else and all problems come out in one pass.
import type { z } from 'zod';
import { SERVICE_CREATE_DEFAULTS } from '../model.js';
import { SETTING_KEYS, type SettingKey, settingSchemas } from './schema.js';

export type SettingValues = { [K in SettingKey]: z.output<(typeof settingSchemas)[K]> };

/** One setting: not written, written but invalid (zod reports why), or a valid value. */
export type Slot<T> = { kind: 'absent' } | { kind: 'invalid' } | { kind: 'ok'; value: T };

export type Settings = { [K in SettingKey]: Slot<SettingValues[K]> };

function readSlot<K extends SettingKey>(raw: Record<string, unknown>, key: K): Slot<SettingValues[K]> {
  if (!Object.hasOwn(raw, key)) return { kind: 'absent' };
  const parsed = settingSchemas[key].safeParse(raw[key]);
  return parsed.success ? { kind: 'ok', value: parsed.data as SettingValues[K] } : { kind: 'invalid' };
}

export function readSettings(raw: Record<string, unknown>): Settings {
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, readSlot(raw, key)])) as Settings;
}

function serviceDefault(key: SettingKey): Slot<unknown> {
  return key === 'password' ? { kind: 'absent' } : { kind: 'ok', value: SERVICE_CREATE_DEFAULTS[key] };
}

/** Own value, else the manifest's defaults, else what the service sets on create. */
export function effectiveSettings(own: Settings, defaults: Settings): Settings {
  const pick = (key: SettingKey): Slot<unknown> => {
    if (own[key].kind !== 'absent') return own[key];
    if (defaults[key].kind !== 'absent') return defaults[key];
    return serviceDefault(key);
  };
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, pick(key)])) as Settings;
}
