// The two read endpoints beside the websites API that the tool's guards use: `GET /api/v1/account`
// (the user and its plan, whose `features.websites` is the most websites the account may hold, -1 for
// unlimited) and `GET /api/v1/stats/{id}` (a statistic of one website summed per value between two
// dates, paginated). Shapes follow the service's AccountResource, SelectStatsRequest and StatController.

import { compareText } from '../model/index.js';
import type { EndpointFault } from './faults.js';
import type { ListShape } from './listing.js';
import type { WebsiteStore } from './store.js';
import { formatTimestamp } from './store.js';
import type { StatRow, TrafficStore } from './traffic.js';

export interface GuardContext {
  store: WebsiteStore;
  traffic: TrafficStore;
  listShape: ListShape;
  defaultPerPage: number;
  /** The stats URL without query, as the paginator links it. */
  path: string;
  fault: EndpointFault | undefined;
}

export interface GuardAnswer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

/** `config('stats.types')`: the statistics the service keeps. */
export const STAT_NAMES = [
  'browser',
  'campaign',
  'city',
  'continent',
  'country',
  'device',
  'event',
  'landing_page',
  'language',
  'os',
  'page',
  'pageviews',
  'pageviews_hours',
  'referrer',
  'resolution',
  'visitors',
  'visitors_hours',
];

const NOT_FOUND: GuardAnswer = { status: 404, json: { message: 'Resource not found.', status: 404 } };
const SERVER_ERROR: GuardAnswer = { status: 500, json: { message: 'Server Error' } };
/** A gateway that is down for now; it asks for the retry at once, so a client's retries run out fast. */
const UNAVAILABLE: GuardAnswer = {
  status: 503,
  json: { message: 'Service Unavailable' },
  headers: { 'Retry-After': '0' },
};

function faulted(fault: EndpointFault | undefined, unreadable: unknown): GuardAnswer | undefined {
  if (fault === 404) return NOT_FOUND;
  if (fault === 500) return SERVER_ERROR;
  if (fault === 503) return UNAVAILABLE;
  if (fault === 'unreadable') return { status: 200, json: unreadable };
  if (typeof fault === 'object') return { status: 200, json: fault.body };
  return undefined;
}

export function accountAnswer(context: Pick<GuardContext, 'store' | 'fault'>): GuardAnswer {
  const fault = faulted(context.fault, { data: { id: 1, name: 'Simulated', plan: { id: 1 } }, status: 200 });
  if (fault) return fault;
  const limit = context.store.maxWebsites ?? -1;
  const features = { pageviews: -1, websites: limit, email_reports: 1, data_export: 1, api: 1 };
  const data = {
    id: 1,
    name: 'Simulated account',
    email: 'owner@example.com',
    avatar_url: 'https://www.gravatar.com/avatar/0?s=96&d=identicon',
    locale: 'en',
    timezone: 'UTC',
    plan: { id: 1, name: limit === -1 ? 'Unlimited' : `${limit} websites`, features },
    created_at: formatTimestamp(0),
  };
  return { status: 200, json: { data, status: 200 } };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** SelectStatsRequest's rules; its failure answers `message` as the error bag itself. */
function validateStats(query: Record<string, string>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const { name, from, to } = query;
  if (!name) errors.name = ['The name field is required.'];
  else if (!STAT_NAMES.includes(name)) errors.name = ['The selected name is invalid.'];
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!value) errors[field] = [`The ${field} field is required.`];
    else if (!DATE.test(value) || Number.isNaN(Date.parse(value)))
      errors[field] = [`The ${field} does not match the format Y-m-d.`];
  }
  if (!errors.to && !errors.from && to! < from!)
    errors.to = ['The to must be a date after or equal to from.'];
  return errors;
}

export function statsAnswer(context: GuardContext, id: string, query: Record<string, string>): GuardAnswer {
  const errors = validateStats(query);
  if (Object.keys(errors).length > 0) return { status: 422, json: { message: errors, status: 422 } };
  const stored = context.store.idOf(id);
  if (!context.store.get(stored)) return NOT_FOUND;
  const unreadable = {
    data: { id: null, website_id: null, name: null, count: null, date: null },
    status: 200,
  };
  const fault = faulted(context.fault, unreadable);
  if (fault) return fault;
  // Only `visitors` is modelled; any other statistic has no rows.
  const rows = query.name === 'visitors' ? context.traffic.between(stored, query.from!, query.to!) : [];
  const desc = query.sort !== 'asc';
  const byValue = query.sort_by === 'value';
  rows.sort((a, b) => (desc ? -1 : 1) * (byValue ? compareText(a.value, b.value) : a.count - b.count));
  return { status: 200, json: renderStats(rows, query, context) };
}

/** The paginated answer; `SUM()` comes back from MySQL as a string, as the service sends it. */
function renderStats(rows: StatRow[], query: Record<string, string>, context: GuardContext): unknown {
  const perPage = /^[1-9]\d*$/.test(query.per_page ?? '') ? Number(query.per_page) : context.defaultPerPage;
  const page = /^[1-9]\d*$/.test(query.page ?? '') ? Number(query.page) : 1;
  const lastPage = Math.max(1, Math.ceil(rows.length / perPage));
  const data = rows
    .slice((page - 1) * perPage, page * perPage)
    .map((row) => ({ value: row.value, count: String(row.count) }));
  const url = (n: number) => `${context.path}?${new URLSearchParams({ ...query, page: String(n) })}`;
  const next = page < lastPage ? url(page + 1) : null;
  const prev = page > 1 ? url(page - 1) : null;
  const meta = { current_page: page, last_page: lastPage, per_page: perPage, total: rows.length };
  if (context.listShape === 'paginator') {
    return { ...meta, data, next_page_url: next, prev_page_url: prev, path: context.path };
  }
  return { data, links: { first: url(1), last: url(lastPage), prev, next }, meta, status: 200 };
}
