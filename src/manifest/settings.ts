// Settings read one field at a time, so an invalid field only makes that field unknown: the
// cross-field checks still run for everything else and all problems come out in one pass.
import type { z } from 'zod';
import { SERVICE_CREATE_DEFAULTS, SETTING_FIELDS, type SettingField } from '../model/index.js';
import { SETTING_KEYS, type SettingKey, settingSchemas } from './schema.js';

export type SettingValues = { [K in SettingKey]: z.output<(typeof settingSchemas)[K]> };

/** One setting: not written, written but invalid (zod reports why), or a valid value. */
export type Slot<T> = { kind: 'absent' } | { kind: 'invalid' } | { kind: 'ok'; value: T };

export type Settings = { [K in SettingKey]: Slot<SettingValues[K]> };

const ABSENT: Slot<never> = Object.freeze({ kind: 'absent' });

/**
 * Validated values by setting and written value. A manifest repeats the same few values (`true`,
 * `public`, the same IP list) across thousands of websites; zod runs once per distinct value. Lists
 * are keyed by their JSON. One cache serves one manifest, so it never outlives (or leaks) a reading.
 */
export class SlotCache {
  readonly #slots = new Map<SettingKey, Map<unknown, Slot<unknown>>>(
    SETTING_KEYS.map((key) => [key, new Map()]),
  );

  readonly #undeclared = new Map<string, readonly SettingField[]>();

  /**
   * The settings a website declares neither itself nor through `defaults`, or undefined when it
   * declares all: one frozen list per distinct set, shared by the websites that have it.
   */
  undeclared(own: Settings, defaults: Settings): readonly SettingField[] | undefined {
    const fields = SETTING_FIELDS.filter((f) => own[f].kind === 'absent' && defaults[f].kind === 'absent');
    if (fields.length === 0) return undefined;
    const key = fields.join(' ');
    let shared = this.#undeclared.get(key);
    if (shared === undefined) {
      shared = Object.freeze(fields);
      this.#undeclared.set(key, shared);
    }
    return shared;
  }

  read<K extends SettingKey>(key: K, value: unknown): Slot<SettingValues[K]> {
    const cacheKey = typeof value === 'object' && value !== null ? listKey(value) : value;
    const slots = this.#slots.get(key)!;
    if (cacheKey === undefined) return parseSlot(key, value);
    let slot = slots.get(cacheKey);
    if (slot === undefined) {
      slot = parseSlot(key, value);
      slots.set(cacheKey, slot);
    }
    return slot as Slot<SettingValues[K]>;
  }
}

/** `\0`-prefixed JSON of a list of strings (never equal to a plain string value); undefined otherwise. */
function listKey(value: object): string | undefined {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return undefined;
  return `\0${JSON.stringify(value)}`;
}

function parseSlot<K extends SettingKey>(key: K, value: unknown): Slot<SettingValues[K]> {
  const parsed = settingSchemas[key].safeParse(value);
  if (!parsed.success) return { kind: 'invalid' };
  // Frozen: the same validated list may be shared by many websites, so nothing may change it.
  const data = Array.isArray(parsed.data) ? Object.freeze(parsed.data) : parsed.data;
  return { kind: 'ok', value: data as SettingValues[K] };
}

/** Whether a manifest can declare `value` for `key` as it is (export writes only what validates). */
export function declarable(key: SettingKey, value: unknown): boolean {
  return parseSlot(key, value).kind === 'ok';
}

export function readSettings(raw: Record<string, unknown>, cache: SlotCache = new SlotCache()): Settings {
  const read = <K extends SettingKey>(key: K) =>
    Object.hasOwn(raw, key) ? cache.read(key, raw[key]) : ABSENT;
  return {
    privacy: read('privacy'),
    password: read('password'),
    email: read('email'),
    exclude_bots: read('exclude_bots'),
    exclude_params: read('exclude_params'),
    exclude_ips: read('exclude_ips'),
  };
}

function serviceDefault(key: SettingKey): Slot<unknown> {
  if (key === 'password') return ABSENT;
  const value = SERVICE_CREATE_DEFAULTS[key];
  // A frozen copy of a default list, shared like any other validated value (see SlotCache).
  return { kind: 'ok', value: Array.isArray(value) ? Object.freeze([...value]) : value };
}

/** Own value, else the manifest's defaults, else what the service sets on create. */
export function effectiveSettings(own: Settings, defaults: Settings): Settings {
  return {
    privacy: pick(own.privacy, defaults.privacy, 'privacy'),
    password: pick(own.password, defaults.password, 'password'),
    email: pick(own.email, defaults.email, 'email'),
    exclude_bots: pick(own.exclude_bots, defaults.exclude_bots, 'exclude_bots'),
    exclude_params: pick(own.exclude_params, defaults.exclude_params, 'exclude_params'),
    exclude_ips: pick(own.exclude_ips, defaults.exclude_ips, 'exclude_ips'),
  } as Settings;
}

function pick(own: Slot<unknown>, defaults: Slot<unknown>, key: SettingKey): Slot<unknown> {
  if (own.kind !== 'absent') return own;
  if (defaults.kind !== 'absent') return defaults;
  return SERVICE_DEFAULTS[key];
}

const SERVICE_DEFAULTS = Object.fromEntries(SETTING_KEYS.map((key) => [key, serviceDefault(key)])) as Record<
  SettingKey,
  Slot<unknown>
>;
