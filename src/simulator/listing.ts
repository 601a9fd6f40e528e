// The list endpoint: query parsing as the controller does it (invalid values silently fall back to
// defaults) and the two pagination shapes deployments answer with.

import type { ListFilter, StoredWebsite, WebsiteRecord } from './store.js';
import type { FormInput } from './validation.js';

export type ListShape = 'resource' | 'paginator';

export interface ListQuery extends ListFilter {
  searchBy: 'domain';
  perPage: number;
  /**
   * `per_page` as the query gave it, when allowed: the controller passes the request's string on, so
   * the paginator reports it as that string (an integer when the default was used).
   */
  perPageText: string | undefined;
  page: number;
}

const PER_PAGE_ALLOWED = [10, 25, 50, 100];

/** PHP's loose `in_array('25', [10, 25, 50, 100])`: numeric strings such as "25" or "25.0" match. */
function allowedPerPage(value: string | null | undefined): number | undefined {
  if (value == null || !/^\d+(\.0*)?$/.test(value)) return undefined;
  const n = Number(value);
  return PER_PAGE_ALLOWED.includes(n) ? n : undefined;
}

export function parseListQuery(query: FormInput, defaultPerPage: number): ListQuery {
  const page = query.page;
  return {
    search: query.search ?? null,
    searchBy: 'domain',
    favorite: query.favorite ?? null,
    sortBy: query.sort_by === 'domain' ? 'domain' : 'id',
    sort: query.sort === 'asc' ? 'asc' : 'desc',
    perPage: allowedPerPage(query.per_page) ?? defaultPerPage,
    perPageText: allowedPerPage(query.per_page) === undefined ? undefined : (query.per_page ?? undefined),
    // Laravel's paginator: anything but an integer >= 1 means page 1.
    page: page != null && /^[+]?\d+$/.test(page) && Number(page) >= 1 ? Number(page) : 1,
  };
}

interface PageInfo {
  data: WebsiteRecord[];
  currentPage: number;
  lastPage: number;
  perPage: number;
  total: number;
  from: number | null;
  to: number | null;
  path: string;
  url: (page: number) => string;
}

type Show = (website: StoredWebsite) => WebsiteRecord;

function paginate(all: readonly StoredWebsite[], query: ListQuery, path: string, show: Show): PageInfo {
  const total = all.length;
  const { perPage, page } = query;
  const data = all.slice((page - 1) * perPage, page * perPage).map(show);
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  // The controller appends its resolved parameters to every page link; PHP drops the null ones.
  const appended: Array<[string, string | null]> = [
    ['search', query.search],
    ['search_by', query.searchBy],
    ['favorite', query.favorite],
    ['sort_by', query.sortBy],
    ['sort', query.sort],
    ['per_page', String(perPage)],
  ];
  const url = (n: number): string => {
    const params = new URLSearchParams();
    for (const [key, value] of appended) if (value !== null) params.set(key, value);
    params.set('page', String(n));
    return `${path}?${params.toString()}`;
  };
  return {
    data,
    currentPage: page,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
    perPage,
    total,
    from,
    to: from === null ? null : from + data.length - 1,
    path,
    url,
  };
}

/** Laravel's `meta.links`: previous, the pages around the current one, next. */
function pageLinks(p: PageInfo, prev: string | null, next: string | null) {
  const pages = [];
  const first = Math.max(1, p.currentPage - 3);
  const last = Math.min(p.lastPage, p.currentPage + 3);
  for (let n = first; n <= last; n++)
    pages.push({ url: p.url(n), label: String(n), active: n === p.currentPage });
  return [
    { url: prev, label: '&laquo; Previous', active: false },
    ...pages,
    { url: next, label: 'Next &raquo;', active: false },
  ];
}

export function renderList(
  all: readonly StoredWebsite[],
  query: ListQuery,
  path: string,
  shape: ListShape,
  show: Show,
): unknown {
  const p = paginate(all, query, path, show);
  const prev = p.currentPage > 1 ? p.url(p.currentPage - 1) : null;
  const next = p.currentPage < p.lastPage ? p.url(p.currentPage + 1) : null;
  if (shape === 'paginator') {
    return {
      current_page: p.currentPage,
      data: p.data,
      first_page_url: p.url(1),
      from: p.from,
      last_page: p.lastPage,
      last_page_url: p.url(p.lastPage),
      next_page_url: next,
      path: p.path,
      per_page: p.perPage,
      prev_page_url: prev,
      to: p.to,
      total: p.total,
    };
  }
  return {
    data: p.data,
    links: { first: p.url(1), last: p.url(p.lastPage), prev, next },
    meta: {
      current_page: p.currentPage,
      from: p.from,
      last_page: p.lastPage,
      links: pageLinks(p, prev, next),
      path: p.path,
      // The paginator reads it from the request when given: a string then, an integer otherwise.
      per_page: query.perPageText ?? p.perPage,
      to: p.to,
      total: p.total,
    },
    status: 200,
  };
}

/**
 * The `stuck-page` fault's answer: a full page of websites never listed before (ids far above the
 * store's), saying it is page 1 of three pages' worth and linking a next page, whatever was asked.
 */
export function renderStuckPage(query: ListQuery, path: string, stuckPages: number): unknown {
  const firstId = 1_000_000_000 + stuckPages * query.perPage;
  const now = new Date(0).toISOString();
  const data: WebsiteRecord[] = Array.from({ length: query.perPage }, (_, i) => ({
    id: firstId + i,
    domain: `stuck${firstId + i}.example.com`,
    privacy: 1,
    email: 0,
    password: false,
    exclude_bots: 1,
    exclude_ips: null,
    favorite: false,
    favorited_at: null,
    created_at: now,
    updated_at: now,
  }));
  const total = 3 * query.perPage;
  return { current_page: 1, data, next_page_url: `${path}?page=2`, path, per_page: query.perPage, total };
}
