import type { Privacy, RemoteWebsite, WebsiteId, WebsiteWrite } from '../model/index.js';

// Translation between the service's JSON/form shapes and our model. The service is lenient in what it
// returns (integers or booleans, strings or nulls), so parsing accepts each form it is known to use.

export function encodeWrite(write: WebsiteWrite, domain?: string): URLSearchParams {
  const form = new URLSearchParams();
  if (domain !== undefined) form.set('domain', domain);
  if (write.privacy !== undefined) form.set('privacy', String(write.privacy));
  if (write.password !== undefined) form.set('password', write.password);
  if (write.email !== undefined) form.set('email', write.email ? '1' : '0');
  if (write.exclude_bots !== undefined) form.set('exclude_bots', write.exclude_bots ? '1' : '0');
  // An empty string clears the list: the service's middleware turns it into null.
  if (write.exclude_params !== undefined) form.set('exclude_params', write.exclude_params.join('\n'));
  if (write.exclude_ips !== undefined) form.set('exclude_ips', write.exclude_ips.join('\n'));
  return form;
}

/** Parses one record; returns undefined when it lacks an id or a domain (not a website). */
export function parseRecord(raw: unknown): RemoteWebsite | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const id = parseId(r.id);
  if (id === undefined || typeof r.domain !== 'string') return undefined;
  const record: RemoteWebsite = { id, domain: r.domain };
  // A key that is absent means "the service does not return this field"; it becomes write-only.
  if ('privacy' in r) record.privacy = parsePrivacy(r.privacy);
  if ('email' in r) record.email = parseFlag(r.email);
  if ('exclude_bots' in r) record.exclude_bots = parseFlag(r.exclude_bots);
  if ('exclude_params' in r) record.exclude_params = parseLines(r.exclude_params);
  if ('exclude_ips' in r) record.exclude_ips = parseLines(r.exclude_ips);
  if ('password' in r) {
    const set = parseFlag(r.password);
    if (set !== undefined) record.hasPassword = set === true;
  }
  return record;
}

/**
 * Ids are opaque (see WebsiteId): any integer or non-empty string without line breaks. A string becomes
 * a number only when it is exactly how that number is written (`"7"`), so every id is sent back as the
 * service showed it: `"07"` or `"7.0"` stay strings (as numbers they would name another website).
 */
export function parseId(value: unknown): WebsiteId | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value)) return undefined;
  // `.` and `..` cannot name a website in a URL path: a URL resolves them (`/websites/..` is `/`).
  if (value === '.' || value === '..') return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && String(n) === value ? n : value;
}

// Every representation the service uses: list and show carry integers and booleans, store and update
// echo the request's strings ("2", "1"), and a field stored without a value is null ("not set").
function parsePrivacy(value: unknown): Privacy | null | undefined {
  if (value === null || value === '') return null;
  const n = typeof value === 'number' || typeof value === 'string' ? Number(value) : Number.NaN;
  return n === 0 || n === 1 || n === 2 ? n : undefined;
}

function parseFlag(value: unknown): boolean | null | undefined {
  if (typeof value === 'boolean') return value;
  if (value === null || value === '') return null;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}

/** One entry per line, compared as a set: sorted, trimmed, blank lines and duplicates dropped. */
export function parseLines(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const lines = Array.isArray(value) ? value.map(String) : String(value).split(/\r?\n/);
  return normaliseList(lines);
}

export function normaliseList(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))].sort();
}
