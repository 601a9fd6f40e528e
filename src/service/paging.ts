import type { LimitFunction } from 'p-limit';
import type { RemoteWebsite } from '../model/index.js';
import { readRecord } from './answers.js';
import { jsonExcerptOf, type Redact, ServiceError } from './errors.js';
import type { HttpTransport } from './http.js';
import { LIST_PATH, type Page, PageGuard, PER_PAGE } from './page-checks.js';

// The list endpoint answers either a Laravel resource collection (`meta` + `links`) or the plain
// paginator (the same keys at the top level). Both are read into one Page.

export { LIST_PATH, MAX_PAGES, type Page, PER_PAGE } from './page-checks.js';

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
    const reading = readRecord(raw, redact);
    if ('problem' in reading) throw unusableWebsite(requested, status, reading.problem);
    records.push(reading.record);
  }
  return {
    page: toInt(meta.current_page) ?? requested,
    records,
    lastPage: toInt(meta.last_page),
    total: toInt(meta.total),
    perPage: toInt(meta.per_page),
    hasNext: typeof next === 'string' && next !== '',
  };
}

/** A website of the list the tool cannot use: never skipped, or the listing would look edited meanwhile. */
function unusableWebsite(page: number, status: number, problem: string): ServiceError {
  return new ServiceError(
    `GET ${LIST_PATH} (page ${page}): the answer holds a website websites-sync cannot use: ${problem}; nothing was planned from it`,
    { method: 'GET', path: LIST_PATH, status },
  );
}

function toInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
}

export interface PagingOptions {
  /**
   * The run's one limiter: every page fetch takes a slot, and as many pages as it has slots are read
   * ahead. Without it (a lookup inside an operation that holds a slot already) pages are read one by one.
   */
  limit?: LimitFunction;
  search?: string;
}

/**
 * Yields the pages of the list in order. We count the pages ourselves and ask for page n by its
 * number (the service's `current_page` and `next_page_url` never choose the next request, and only
 * say whether there is one). The first page bounds the rest: the pages it announces (`last_page`,
 * or total ÷ its size, plus a margin) are all that is read, a few at a time (never a promise per
 * page up front); a page that is not the one asked for, repeats an earlier one or holds more than
 * the first ends the listing with a clear error (see page-checks.ts).
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
  const guard = new PageGuard(first);
  yield first;
  if (first.lastPage !== undefined) {
    let n = 1;
    for await (const page of fetchAhead(first.lastPage, Math.max(1, limit?.concurrency ?? 1), fetchPage)) {
      guard.accept(page, ++n);
      yield page;
      if (guard.endedEarly(page, n, first)) return;
    }
    return;
  }
  let current = first;
  for (let n = 2; current.hasNext && current.records.length > 0; n++) {
    guard.mayRead(n);
    current = await fetchPage(n);
    guard.accept(current, n);
    yield current;
  }
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
