import pLimit from 'p-limit';
import type { RemoteWebsite } from '../model/index.js';
import { jsonExcerptOf, ServiceError } from './errors.js';
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

export function parsePage(body: unknown, requested: number, status = 200): Page {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!Array.isArray(b.data)) {
    const excerpt = jsonExcerptOf(body);
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
  /** Pages fetched at once once the first page told how many there are. */
  concurrency: number;
  search?: string;
}

/**
 * Yields the pages of the list in order. When the first page states the number of pages, the rest
 * are fetched concurrently; otherwise the `next` links are followed one by one.
 */
export async function* listPages(http: HttpTransport, options: PagingOptions): AsyncGenerator<Page> {
  const fetchPage = async (page: number): Promise<Page> => {
    const query: Record<string, string | number> = { page, per_page: PER_PAGE, sort_by: 'id', sort: 'asc' };
    if (options.search !== undefined) query.search = options.search;
    const { status, body } = await http.request('GET', LIST_PATH, { query });
    return parsePage(body, page, status);
  };
  const first = await fetchPage(1);
  yield first;
  if (first.lastPage !== undefined) {
    const limit = pLimit(Math.max(1, options.concurrency));
    const rest: Promise<Page>[] = [];
    for (let page = 2; page <= first.lastPage; page++) rest.push(limit(() => fetchPage(page)));
    // A failure is rethrown when its turn comes; the others must not become unhandled meanwhile.
    for (const pending of rest) pending.catch(() => {});
    for (const pending of rest) yield await pending;
    return;
  }
  let current = first;
  while (current.hasNext && current.records.length > 0) {
    current = await fetchPage(current.page + 1);
    yield current;
  }
}
