import type { LimitFunction } from 'p-limit';
import { compareIds, type RemoteWebsite, type WebsiteId } from '../model/index.js';
import type { HttpTransport } from './http.js';
import { listPages, type Page } from './paging.js';

// One read of the whole list, and whether it can be trusted. The list is paged and the service keeps
// no snapshot: when someone edits the account while we page, a deletion on an early page moves a
// record we had not reached yet onto a page already read (we would miss it and plan a create), and an
// insertion moves one onto a page read later (we would see it twice). Each such move leaves a trace
// that costs no request to check: totals that change between pages, a count that disagrees with the
// total, or an id on two pages. Records are told apart by id alone: two ids under one name are not a
// trace of an edit but records the service holds separately (`Shop.example.com` stored before the
// service lower-cased names, beside `shop.example.com`), which the plan keeps as twins (matching.ts).

export interface Listing {
  records: RemoteWebsite[];
  /** Pages read: a single page is an atomic snapshot, several are not. */
  pages: number;
  /** Why the listing cannot be trusted; undefined when it is consistent. */
  problem: string | undefined;
}

export async function readListing(http: HttpTransport, limit: LimitFunction): Promise<Listing> {
  const pages: Page[] = [];
  for await (const page of listPages(http, { limit })) pages.push(page);
  return checkPages(pages);
}

export function checkPages(pages: readonly Page[]): Listing {
  const byId = new Map<WebsiteId, RemoteWebsite>();
  const totals = new Set<number>();
  let problem: string | undefined;
  for (const page of pages) {
    if (page.total !== undefined) totals.add(page.total);
    for (const record of page.records) {
      if (byId.has(record.id)) problem ??= `website ${record.id} appeared on two pages`;
      byId.set(record.id, record);
    }
  }
  const records = [...byId.values()];
  const [total] = totals;
  if (totals.size > 1) problem ??= `the total went from ${[...totals].join(' to ')}`;
  else if (total !== undefined && total !== records.length) {
    problem ??= `${records.length} collected, ${total} announced`;
  }
  return { records, pages: pages.length, problem };
}

/** Whether two listings hold the same websites with the same readable settings. */
export function sameListing(a: readonly RemoteWebsite[], b: readonly RemoteWebsite[]): boolean {
  if (a.length !== b.length) return false;
  const key = (records: readonly RemoteWebsite[]) =>
    JSON.stringify([...records].sort((x, y) => compareIds(x.id, y.id)));
  return key(a) === key(b);
}
