import { z } from 'zod';
import type { PlanLimit, TrafficReading, WebsiteId } from '../model/index.js';
import { AuthError, ServiceError } from './errors.js';
import type { HttpTransport } from './http.js';
import { NotSentError } from './stop.js';

// The two reads the guards take from the service, beside the websites API. Either answer may be missing
// (an older version has no such route), broken (one public version's StatResource cannot serialise the
// paginator it is given: a 500) or shaped otherwise (versions wrap it differently). Whatever cannot be
// read is "unknown", never "no limit" or "no traffic". A refused key is not unknown: it stops the run.

export const ACCOUNT_PATH = '/api/v1/account';
export const STATS_PATH = '/api/v1/stats';

/** A 500 here is the broken version's answer, not a hiccup: retried are only throttling and gateways. */
const RETRIED = [429, 502, 503, 504];
/** Answers that say "not now" rather than "this service cannot tell": still so after the retries. */
const PASSING = new Set([408, ...RETRIED]);

type Unread = { unknown: string; transient: boolean };

/** An integer, or the string of one (PHP and MySQL hand numbers over either way). */
const integer = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);

/** AccountResource, `{ data: {…, plan: { features: { websites } } }, status: 200 }`. */
const accountSchema = z.object({
  data: z.object({ plan: z.object({ features: z.object({ websites: integer }) }) }),
});

/**
 * One row of a stat, summed per value: `{ value: "2026-11-20", count: "12" }`. Only its count matters
 * (versions name or type the value otherwise); a count is never negative. A row without a usable count
 * is kept as undefined: it cannot say "none", and it does not hide the visitors of the other rows.
 */
const statRow = z
  .object({ count: integer.pipe(z.number().min(0)) })
  .transform((row) => row.count)
  .optional()
  .catch(undefined);
/** What a paginator says of the rows it did not answer: `total` and the next page's link. */
const paging = z
  .object({ total: integer.optional().catch(undefined), next: z.string().min(1).optional().catch(undefined) })
  .catch({});
/** A resource collection (`data`, `links`, `meta`) or a bare paginator (`data` beside `current_page`). */
const statsSchema = z.object({
  data: z.array(statRow),
  meta: paging.optional(),
  links: paging.optional(),
  total: integer.optional().catch(undefined),
  next_page_url: z.string().min(1).optional().catch(undefined),
});

export async function readPlanLimit(http: HttpTransport): Promise<PlanLimit> {
  const body = await readOrUnknown(http, ACCOUNT_PATH, {});
  if ('unknown' in body) return { kind: 'unknown', reason: body.unknown };
  const parsed = accountSchema.safeParse(body.value);
  if (!parsed.success) return { kind: 'unknown', reason: 'the answer holds no plan.features.websites' };
  const websites = parsed.data.data.plan.features.websites;
  if (websites === -1) return { kind: 'unlimited' };
  if (websites < 0) return { kind: 'unknown', reason: `the plan says ${websites} websites` };
  return { kind: 'limited', websites };
}

export interface TrafficWindow {
  days: number;
  /** The clock, milliseconds since the epoch. */
  now: number;
}

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The window's dates, a day wider on each side: the service dates a visit in its own time zone, which
 * may be a day off UTC. One row per date, sorted by count, so one page of 100 holds every date.
 */
export function trafficQuery(window: TrafficWindow): Record<string, string> {
  return {
    name: 'visitors',
    from: dateOf(window.now - window.days * DAY_MS),
    to: dateOf(window.now + DAY_MS),
    sort_by: 'count',
    sort: 'desc',
    per_page: '100',
  };
}

export async function readTraffic(
  http: HttpTransport,
  id: WebsiteId,
  window: TrafficWindow,
): Promise<TrafficReading> {
  const path = `${STATS_PATH}/${encodeURIComponent(String(id))}`;
  const body = await readOrUnknown(http, path, trafficQuery(window));
  if ('unknown' in body) {
    return { kind: 'unknown', reason: body.unknown, ...(body.transient ? { transient: true as const } : {}) };
  }
  const parsed = statsSchema.safeParse(body.value);
  if (!parsed.success) return { kind: 'unknown', reason: 'the answer holds no visitor counts' };
  const { data, meta, links, total, next_page_url } = parsed.data;
  const visitors = data.reduce((sum: number, count) => sum + (count ?? 0), 0);
  // Visitors anywhere in the answer are enough to refuse (sorted by count, the first page holds the
  // largest). "None" needs the whole answer: every row readable, and no rows said to be elsewhere.
  if (visitors > 0) return { kind: 'known', visitors };
  if (data.includes(undefined)) return { kind: 'unknown', reason: 'the answer holds a row without a count' };
  const rows = meta?.total ?? total;
  const more = (rows !== undefined && rows > data.length) || (links?.next ?? next_page_url) !== undefined;
  if (more) return { kind: 'unknown', reason: 'the answer says it holds more rows than it shows' };
  return { kind: 'known', visitors };
}

/**
 * The answer's body, or why there is none to read, and whether that is a passing failure (no answer,
 * or "not now" after the retries). A refused key and a stop are not "unknown".
 */
async function readOrUnknown(
  http: HttpTransport,
  path: string,
  query: Record<string, string>,
): Promise<{ value: unknown } | Unread> {
  try {
    const { body } = await http.request('GET', path, { query, retryStatusCodes: RETRIED });
    return { value: body };
  } catch (error) {
    if (error instanceof NotSentError) throw error;
    // 403 here is a proxy or a version that keeps the route from this key, not a refused key.
    if (error instanceof AuthError && error.status !== 403) throw error;
    if (!(error instanceof ServiceError)) throw error;
    const { status } = error;
    if (status === undefined) return { unknown: 'no answer', transient: true };
    if (status < 300) return { unknown: 'the answer could not be read', transient: false };
    return { unknown: `the service answered ${status}`, transient: PASSING.has(status) };
  }
}
