import { z } from 'zod';
import { canonicalIp, type Privacy, type RemoteWebsite, type WebsiteId } from '../model/index.js';
import { jsonExcerptOf, messageOf, type Redact } from './errors.js';

// The one description of what the service's answers hold, checked before any value is used (issue 19
// §7): a value of another type (`"exclude_ips": {"toString": 1}`) is a clear error naming the request,
// the website and a redacted excerpt, never a crash deeper in. The service is lenient in what it
// returns (list and show carry integers and booleans, store and update echo the request's strings,
// a field stored without a value is null), so each field accepts every form it is known to use. A key
// that is absent means "the service does not return this field": it stays absent (write-only).

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

/** One entry per line, compared as a set: sorted, trimmed, blank lines and duplicates dropped. */
export function normaliseList(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))].sort();
}

/** The value a field reader refuses: the field holds another type than the service is known to use. */
const INVALID: unique symbol = Symbol('invalid');
type Reader<T> = (value: unknown) => T | typeof INVALID;

const readPrivacy: Reader<Privacy | null> = (value) => {
  if (value === null || value === '') return null;
  if (value === 0 || value === 1 || value === 2) return value;
  return value === '0' || value === '1' || value === '2' ? (Number(value) as Privacy) : INVALID;
};

const readFlag: Reader<boolean | null> = (value) => {
  if (value === null || value === '') return null;
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  return value === false || value === 0 || value === '0' || value === 'false' ? false : INVALID;
};

const readLines: Reader<string[]> = (value) => {
  if (value === null) return [];
  if (typeof value === 'string') return normaliseList(value.split(/\r?\n/));
  if (!Array.isArray(value)) return INVALID;
  const items: unknown[] = value;
  const usable = items.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));
  return usable ? normaliseList(items.map(String)) : INVALID;
};

/** IP addresses, one per line or a list, in the form a manifest's are compared in. */
const readIps: Reader<string[]> = (value) => {
  const lines = readLines(value);
  return lines === INVALID ? INVALID : normaliseList(lines.map(canonicalIp));
};

/** The password is never returned; whether one is set is (a boolean, or a variant's non-empty string). */
const readPasswordSet: Reader<boolean> = (value) => {
  const flag = readFlag(value);
  if (flag !== INVALID) return flag === true;
  return typeof value === 'string' ? value !== '' : INVALID;
};

interface Field<K extends keyof RemoteWebsite> {
  /** The key of the answer. */
  key: string;
  /** The key of the record it is read into. */
  as: K;
  read: Reader<NonNullable<RemoteWebsite[K]> | Extract<RemoteWebsite[K], null>>;
  /** What the field must be, for the message that names it. */
  expected: string;
}

const field = <K extends keyof RemoteWebsite>(f: Field<K>) => f;

/**
 * A website as the service answers it (list, show, store, update), field by field in this order: the
 * first field that is unusable is the one a message names. Keys not listed here are ignored.
 */
const FIELDS = [
  field({ key: 'privacy', as: 'privacy', read: readPrivacy, expected: '0, 1, 2 or null' }),
  field({ key: 'email', as: 'email', read: readFlag, expected: 'a boolean, 0/1 or null' }),
  field({ key: 'exclude_bots', as: 'exclude_bots', read: readFlag, expected: 'a boolean, 0/1 or null' }),
  field({
    key: 'exclude_params',
    as: 'exclude_params',
    read: readLines,
    expected: 'a one-per-line string, a list of strings or null',
  }),
  field({
    key: 'exclude_ips',
    as: 'exclude_ips',
    read: readIps,
    expected: 'a one-per-line string, a list of strings or null',
  }),
  field({ key: 'password', as: 'hasPassword', read: readPasswordSet, expected: 'a boolean' }),
] as const;

const ID_EXPECTED = 'an integer of at most 2^53 or a non-empty string without line breaks';

export type RecordReading = { record: RemoteWebsite } | { problem: string };

/**
 * Reads one website of an answer, or says what makes it unusable: which website (its domain, else its
 * id), which field, what was expected, and the value as answered (redacted, shortened). Plain checks,
 * not a schema library: every page of a listing passes through here, 100,000 records for a large
 * account (docs/explanation/benchmarks.md).
 */
export function readRecord(raw: unknown, redact: Redact): RecordReading {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problem: `an entry that is not a website: ${jsonExcerptOf(raw, redact)}` };
  }
  const fields = raw as Record<string, unknown>;
  const id = parseId(fields.id);
  if (id === undefined) return unusable(fields, 'id', ID_EXPECTED, redact);
  if (typeof fields.domain !== 'string') return unusable(fields, 'domain', 'a string', redact);
  const record: RemoteWebsite = { id, domain: fields.domain };
  for (const { key, as, read, expected } of FIELDS) {
    const value = fields[key];
    // Absent: the service does not return this field (write-only), and it stays absent.
    if (value === undefined) continue;
    const parsed = read(value);
    if (parsed === INVALID) return unusable(fields, key, expected, redact);
    // Field<K> ties each reader's type to the key it is read into.
    (record as unknown as Record<string, unknown>)[as] = parsed;
  }
  return { record };
}

function unusable(
  fields: Record<string, unknown>,
  key: string,
  expected: string,
  redact: Redact,
): { problem: string } {
  const name = typeof fields.domain === 'string' ? JSON.stringify(fields.domain) : 'a website';
  const shownId = key !== 'id' && parseId(fields.id) !== undefined ? ` (id ${String(fields.id)})` : '';
  const got = key in fields ? `got ${jsonExcerptOf(fields[key], redact)}` : 'it is missing';
  return {
    problem: `${redact(name)}${shownId}: ${key} must be ${expected}, ${got}; the website as answered: ${jsonExcerptOf(fields, redact)}`,
  };
}

const message = z.string().optional().catch(undefined);
const messages = z
  .union([z.array(z.unknown()), z.unknown()])
  .transform((value) => (Array.isArray(value) ? value : [value]).map(shownText));

/** An error answer: its `message` when it is a string, and Laravel's `errors` as field → messages. */
const errorBodySchema = z
  .object({ message, errors: z.record(z.string(), messages).optional().catch(undefined) })
  .catch({});

export interface ErrorBody {
  message: string | undefined;
  fieldErrors: Record<string, string[]>;
}

/** Fields, and messages per field, kept of an error answer: a real one names a few. */
const MAX_FIELDS = 20;
const MAX_FIELD_MESSAGES = 5;

/** Every text of it masked, on one line and of bounded length (messageOf), however much was sent. */
export function readErrorBody(body: unknown, redact: Redact = (text) => text): ErrorBody {
  const parsed = errorBodySchema.parse(typeof body === 'object' && body !== null ? body : {});
  // Own properties only: a field named `__proto__` stays a field.
  const fieldErrors: Record<string, string[]> = Object.fromEntries(
    Object.entries(parsed.errors ?? {})
      .slice(0, MAX_FIELDS)
      .map(([field, messages]) => [
        messageOf(field, redact),
        messages.slice(0, MAX_FIELD_MESSAGES).map((m) => messageOf(m, redact)),
      ]),
  );
  const message = parsed.message === undefined ? undefined : messageOf(parsed.message, redact);
  return { message, fieldErrors };
}

/** A value of an answer as text: a string as it is, anything else as JSON (never its own toString). */
function shownText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}
