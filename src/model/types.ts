// The vocabulary every stage shares: what a website's settings are, as declared and as read.
// Stages import these types; none of them imports another stage's internals.
import type { TrafficGuardMode } from './guards.js';

/** 0 = public, 1 = private, 2 = password-protected (the service's codes). */
export type Privacy = 0 | 1 | 2;

export const PRIVACY_NAMES: Record<Privacy, 'public' | 'private' | 'password'> = {
  0: 'public',
  1: 'private',
  2: 'password',
};

/** Settings the tool manages, in the order they are shown and sent. `password` is handled apart. */
export const SETTING_FIELDS = ['privacy', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips'] as const;
export type SettingField = (typeof SETTING_FIELDS)[number];

/** Every field the tool may write, the password included. */
export type WritableField = SettingField | 'password';

/** Every writable field, in the order they are shown (the names `ignore_fields` accepts). */
export const WRITABLE_FIELDS: readonly WritableField[] = [
  'privacy',
  'password',
  'email',
  'exclude_bots',
  'exclude_params',
  'exclude_ips',
];

export interface WebsiteSettings {
  privacy: Privacy;
  email: boolean;
  exclude_bots: boolean;
  /** Sorted, de-duplicated parameter names. */
  exclude_params: string[];
  /** Sorted, de-duplicated addresses. */
  exclude_ips: string[];
}

/** A write to the service: every field optional (an update sends only what differs). */
export type WebsiteWrite = Partial<WebsiteSettings> & { password?: string };

/** What the service sets when a store leaves a field out. */
export const SERVICE_CREATE_DEFAULTS: Readonly<WebsiteSettings> = Object.freeze({
  privacy: 1,
  email: false,
  exclude_bots: true,
  exclude_params: [],
  exclude_ips: [],
});

/** Where a declaration sits in the manifest, for messages. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** One listed website with every setting resolved (own value, else defaults, else service default). */
export interface DesiredWebsite extends WebsiteSettings {
  /** Canonical domain: the one the service stores for this entry, the identity matching remote records. */
  domain: string;
  /**
   * The entry's name before the service's `www.` rule (`www.legacy.example.com` for `legacy.example.com`),
   * when they differ: a record stored earlier under that name is this website too.
   */
  writtenDomain?: string;
  /** Only present when privacy is 2; never logged or rendered. */
  password?: string;
  /**
   * `protect:` as declared (own, else defaults): true protects the website from deletes, false lifts a
   * protection the state remembers, absent leaves the remembered protection as it is.
   */
  protect?: boolean;
  /** `observe: true`: read and compared, never written. */
  observe?: boolean;
  /** `ignore_fields:`: never compared, shown or sent (a create leaves them to the service's default). */
  ignoreFields?: readonly WritableField[];
  /**
   * Settings written neither by the entry nor under `defaults` (they take the service's create default).
   * A write-only one (the service does not return it) that websites-sync never sent is left as the
   * service holds it: sending the default would wipe a value nobody can see. Absent: all declared.
   */
  undeclared?: readonly SettingField[];
  location: SourceLocation;
}

export interface DesiredState {
  /** Absolute or as-given path of the manifest. */
  file: string;
  prune: boolean;
  /** Glob patterns (picomatch) of domains that are never created, changed or deleted. */
  ignore: string[];
  websites: DesiredWebsite[];
  /** True when the manifest has no `websites:` key or an empty list (guarded like a mass delete). */
  websitesEmpty: boolean;
  /** `delete_delay:` in milliseconds, when the manifest sets one. */
  deleteDelayMs?: number;
  /** `traffic_window:` in days, when the manifest sets it (0: the traffic guard is off). */
  trafficWindowDays?: number;
  /** `traffic_guard:`, when the manifest sets it. */
  trafficGuard?: TrafficGuardMode;
  /**
   * Canonical domains of the entries with `allow_delete_with_traffic: true`: websites to delete (with
   * prune) although they have visitors. They are not desired websites.
   */
  allowDeleteWithTraffic?: readonly string[];
}

/**
 * A website as the service returned it. A setting is `undefined` when the response did not carry it:
 * that field is write-only for this service and is tracked by fingerprint instead.
 */
/**
 * The service's id of a website, opaque: the seed leaves its format open. Integers (and a string that
 * is exactly an integer as written, `"7"`, so one record compares equal however it is spelled) are
 * numbers; anything else (`w-7`, `07`) is kept, and sent back, as the string the service sent. Stored
 * (state, saved plans, backups) as `String(id)`.
 */
export type WebsiteId = number | string;

/**
 * A setting is `undefined` when the service does not return it (write-only: tracked by fingerprint), and
 * `null` when it returns it without a value: a store that left it out, or a record made in the web UI.
 * `null` is "not set": it differs from every declared value, so the plan sets it.
 */
export interface RemoteWebsite {
  id: WebsiteId;
  domain: string;
  privacy?: Privacy | null;
  email?: boolean | null;
  exclude_bots?: boolean | null;
  exclude_params?: string[];
  exclude_ips?: string[];
  /** Whether a password is set (the service never returns the password itself). */
  hasPassword?: boolean;
}

/** A problem found in the manifest; `severity: 'warning'` problems do not stop a run. */
export interface Problem {
  severity: 'error' | 'warning';
  file: string;
  line: number;
  column: number;
  /** Dotted path of the field, e.g. `websites[2].exclude_ips[0]`. */
  field: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}
