import type { LimitFunction } from 'p-limit';
import type { RemoteWebsite } from '../model/index.js';
import { jsonExcerptOf, type Redact, ServiceError } from './errors.js';
import type { HttpTransport } from './http.js';
import { parseRecord } from './records.js';

// The list endpoint answers either a Laravel resource collection (`meta` + `links`) or the plain
// paginator (the same keys at the top level). Both are read into one Page.

export const LIST_PATH = '/api/v1/websites';
/** The largest page the service accepts; other values silently fall back to its default (10). */
export const PER_PAGE = 100;

export interface Page {
  page: number;
  records: RemoteWebsite[];
  lastPage: number | undefined;
  total: number | undefined;
  /** Whether the service says there is a page after this one (from `next` links). */
  hasNext: boolean;
}

export function parsePage(
  body: unknown,
  requested: number,
  status = 200,
  redact: Redact = (text) => text,
): Page {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!Array.isArray(b.data)) {
    const excerpt = jsonExcerptOf(body, redact);
    throw new ServiceError(
      `GET ${LIST_PATH}: unexpected answer ${status} without a "data" list: ${excerpt}`,
      {
        method: 'GET',
        path: LIST_PATH,
        status,
        excerpt,
      },
    );
  }
  const meta = (typeof b.meta === 'object' && b.meta !== null ? b.meta : b) as Record<string, unknown>;
  const links = (typeof b.links === 'object' && b.links !== null ? b.links : {}) as Record<string, unknown>;
  const next = links.next ?? b.next_page_url;
  const records: RemoteWebsite[] = [];
  for (const raw of b.data) {
    const record = parseRecord(raw);
    if (record) records.push(record);
  }
  return {
    page: toInt(meta.current_page) ?? requested,
    records,
    lastPage: toInt(meta.last_page),
    total: toInt(meta.total),
    hasNext: typeof next === 'string' && next !== '',
  };
}

function toInt(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

export interface PagingOptions {
  /**
   * The run's one limiter: every page fetch takes a slot, and as many pages as it has slots are read
   * ahead. Without it (a lookup inside an operation that holds a slot already) pages are read one by one.
   */
  limit?: LimitFunction;
  search?: string;
}

/** Pages read at most when the first page says nothing of the total: 10 million websites. */
export const MAX_PAGES = 100_000;

/**
 * Yields the pages of the list in order. When the first page states the number of pages, the rest are
 * fetched a few at a time (never a promise per page up front); otherwise the `next` links are followed
 * one by one. Either way the number of pages is bounded by what the first page announced, and a page
 * that repeats an earlier one ends the listing: hostile or broken answers end, and clearly.
 */
export async function* listPages(http: HttpTransport, options: PagingOptions): AsyncGenerator<Page> {
  const read = async (page: number): Promise<Page> => {
    const query: Record<string, string | number> = { page, per_page: PER_PAGE, sort_by: 'id', sort: 'asc' };
    if (options.search !== undefined) query.search = options.search;
    const { status, body } = await http.request('GET', LIST_PATH, { query });
    return parsePage(body, page, status, http.redact);
  };
  const { limit } = options;
  const fetchPage = limit ? (page: number) => limit(() => read(page)) : read;
  const first = await fetchPage(1);
  yield first;
  const bound = pageBound(first);
  if (first.lastPage !== undefined) {
    if (first.lastPage > bound.max)
      throw notAddingUp(`it announces ${first.lastPage} pages, but ${bound.why}`);
    yield* fetchAhead(first.lastPage, Math.max(1, limit?.concurrency ?? 1), fetchPage);
    return;
  }
  const seen = new Set([signature(first)]);
  let current = first;
  while (current.hasNext && current.records.length > 0) {
    if (current.page + 1 > bound.max) {
      throw notAddingUp(`it still links a page after page ${current.page}, but ${bound.why}`);
    }
    current = await fetchPage(current.page + 1);
    const seenAs = signature(current);
    if (seen.has(seenAs)) throw notAddingUp(`page ${current.page} repeats a page already read`);
    seen.add(seenAs);
    yield current;
  }
}

/** The most pages the listing can have, from what the first page says, with a margin for edits. */
function pageBound(first: Page): { max: number; why: string } {
  if (first.total === undefined) return { max: MAX_PAGES, why: `at most ${MAX_PAGES} pages are read` };
  const perPage = Math.max(1, first.records.length);
  return {
    max: Math.min(MAX_PAGES, Math.ceil(first.total / perPage) + 2),
    why: `the first page says ${first.total} websites at ${perPage} a page`,
  };
}

function signature(page: Page): string {
  const ids = page.records.map((r) => r.id);
  return `${page.page}|${ids.length}|${ids[0]}|${ids[ids.length - 1]}`;
}

/** Pages 2..last, at most `concurrency` asked for ahead (memory stays bounded), yielded in order. */
async function* fetchAhead(
  last: number,
  concurrency: number,
  fetchPage: (page: number) => Promise<Page>,
): AsyncGenerator<Page> {
  const window: Promise<Page>[] = [];
  let next = 2;
  const fill = () => {
    while (next <= last && window.length < concurrency) {
      const pending = fetchPage(next++);
      // A failure is rethrown when its turn comes; it must not become unhandled meanwhile.
      pending.catch(() => {});
      window.push(pending);
    }
  };
  fill();
  while (window.length > 0) {
    const page = await window.shift()!;
    fill();
    yield page;
  }
}

function notAddingUp(problem: string): ServiceError {
  return new ServiceError(
    `GET ${LIST_PATH}: the listing's answers do not add up (${problem}); nothing was planned from it`,
    { method: 'GET', path: LIST_PATH },
  );
}
