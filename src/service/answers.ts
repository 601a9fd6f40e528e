import { z } from 'zod';
import type { Privacy, RemoteWebsite, WebsiteId } from '../model/index.js';
import { jsonExcerptOf, type Redact } from './errors.js';

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

const id = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const parsed = parseId(value);
  if (parsed === undefined) ctx.addIssue({ code: 'custom', message: 'unusable id' });
  return parsed ?? z.NEVER;
});

const privacy = z
  .union([z.literal([0, 1, 2]), z.enum(['0', '1', '2', '']), z.null()])
  .transform((value): Privacy | null => (value === null || value === '' ? null : (Number(value) as Privacy)));

const flag = z
  .union([z.boolean(), z.literal([0, 1]), z.enum(['0', '1', 'true', 'false', '']), z.null()])
  .transform((value): boolean | null =>
    value === null || value === ''
      ? null
      : value === true || value === 1 || value === '1' || value === 'true',
  );

const lines = z
  .union([z.null(), z.string(), z.array(z.union([z.string(), z.number()]))])
  .transform((value) =>
    value === null ? [] : normaliseList(Array.isArray(value) ? value.map(String) : value.split(/\r?\n/)),
  );

/** The password is never returned; whether one is set is (a boolean, or a variant's non-empty string). */
const passwordSet = z
  .union([flag, z.string()])
  .transform((value) => value === true || (typeof value === 'string' && value !== ''));

/** A website as the service answers it (list, show, store, update). */
export const websiteRecordSchema = z.object({
  id,
  domain: z.string(),
  privacy: privacy.optional(),
  email: flag.optional(),
  exclude_bots: flag.optional(),
  exclude_params: lines.optional(),
  exclude_ips: lines.optional(),
  password: passwordSet.optional(),
});

/** What each field must be, for the message that names it. */
const EXPECTED: Record<keyof z.input<typeof websiteRecordSchema>, string> = {
  id: 'an integer of at most 2^53 or a non-empty string without line breaks',
  domain: 'a string',
  privacy: '0, 1, 2 or null',
  email: 'a boolean, 0/1 or null',
  exclude_bots: 'a boolean, 0/1 or null',
  exclude_params: 'a one-per-line string, a list of strings or null',
  exclude_ips: 'a one-per-line string, a list of strings or null',
  password: 'a boolean',
};

export type RecordReading = { record: RemoteWebsite } | { problem: string };

/**
 * Reads one website of an answer, or says what makes it unusable: which website (its domain, else its
 * id), which field, what was expected, and the value as answered (redacted, shortened).
 */
export function readRecord(raw: unknown, redact: Redact): RecordReading {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problem: `an entry that is not a website: ${jsonExcerptOf(raw, redact)}` };
  }
  const result = websiteRecordSchema.safeParse(raw);
  if (result.success) return { record: toRemote(result.data) };
  const fields = raw as Record<string, unknown>;
  const field = String(result.error.issues[0]?.path[0] ?? 'id') as keyof typeof EXPECTED;
  const name = typeof fields.domain === 'string' ? JSON.stringify(fields.domain) : 'a website';
  const shownId = field !== 'id' && parseId(fields.id) !== undefined ? ` (id ${String(fields.id)})` : '';
  const got = field in fields ? `got ${jsonExcerptOf(fields[field], redact)}` : 'it is missing';
  const expected = EXPECTED[field] ?? 'another value';
  return {
    problem: `${redact(name)}${shownId}: ${field} must be ${expected}, ${got}; the website as answered: ${jsonExcerptOf(raw, redact)}`,
  };
}

function toRemote(data: z.output<typeof websiteRecordSchema>): RemoteWebsite {
  const record: RemoteWebsite = { id: data.id, domain: data.domain };
  if (data.privacy !== undefined) record.privacy = data.privacy;
  if (data.email !== undefined) record.email = data.email;
  if (data.exclude_bots !== undefined) record.exclude_bots = data.exclude_bots;
  if (data.exclude_params !== undefined) record.exclude_params = data.exclude_params;
  if (data.exclude_ips !== undefined) record.exclude_ips = data.exclude_ips;
  if (data.password !== undefined) record.hasPassword = data.password;
  return record;
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

export function readErrorBody(body: unknown): ErrorBody {
  const parsed = errorBodySchema.parse(typeof body === 'object' && body !== null ? body : {});
  return { message: parsed.message, fieldErrors: parsed.errors ?? {} };
}

/** A value of an answer as text: a string as it is, anything else as JSON (never its own toString). */
function shownText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}
