import type { RemoteWebsite } from '../model/index.js';
import { ServiceError } from './errors.js';

// What the list endpoint's answers must agree on before a page is used (issue 10 §6). Every field of
// an answer that could drive a loop or an allocation is checked here: the pages read are counted by
// us (never bounded by the service's page numbers), the first page's total and page size bound them,
// and an answer that contradicts what was asked or said before ends the listing with a clear error.

export const LIST_PATH = '/api/v1/websites';
/** The largest page the service accepts; other values silently fall back to its default (10). */
export const PER_PAGE = 100;
/** Pages read at most when the first page says nothing of the total: 10 million websites. */
export const MAX_PAGES = 100_000;
/** Pages read past what the first page announces: room for websites added while paging. */
export const PAGE_MARGIN = 2;
/** Websites collected at most from one listing, whatever the pages hold. */
export const MAX_RECORDS = MAX_PAGES * PER_PAGE;

export interface Page {
  page: number;
  records: RemoteWebsite[];
  lastPage: number | undefined;
  total: number | undefined;
  /** The page size the answer states (`per_page`), when it states one. */
  perPage?: number | undefined;
  /** Whether the service says there is a page after this one (from `next` links). */
  hasNext: boolean;
}

export function notAddingUp(problem: string): ServiceError {
  return new ServiceError(
    `GET ${LIST_PATH}: the listing's answers do not add up (${problem}); nothing was planned from it`,
    { method: 'GET', path: LIST_PATH },
  );
}

/** Checks one answer on its own: the page asked for, a sane size and total. */
export function checkAnswer(page: Page, requested: number): void {
  const n = page.records.length;
  if (page.page !== requested) {
    throw notAddingUp(`page ${requested} was asked for, the answer says it is page ${page.page}`);
  }
  if (page.perPage !== undefined && (page.perPage < 1 || n > page.perPage)) {
    throw notAddingUp(`page ${requested} holds ${n} websites, but says ${page.perPage} a page`);
  }
  if (page.total !== undefined && page.total < 0) {
    throw notAddingUp(`page ${requested} announces ${page.total} websites`);
  }
  if (page.lastPage !== undefined && page.lastPage < 1) {
    throw notAddingUp(`page ${requested} announces ${page.lastPage} pages`);
  }
}

/**
 * The pages of one listing as they arrive: counts pages and websites against what the first page
 * announced, and refuses a page that repeats an earlier one (a service ignoring `page`).
 */
export class PageGuard {
  /** The most pages this listing may have. */
  readonly maxPages: number;
  readonly #why: string;
  readonly #firstSize: number;
  readonly #seen = new Set<string>();
  #records = 0;

  constructor(first: Page) {
    this.#firstSize = first.records.length;
    if (first.total === undefined) {
      this.maxPages = MAX_PAGES;
      this.#why = `at most ${MAX_PAGES} pages are read`;
    } else {
      const perPage = Math.max(1, first.records.length);
      this.maxPages = Math.min(MAX_PAGES, Math.ceil(first.total / perPage) + PAGE_MARGIN);
      this.#why = `the first page says ${first.total} websites at ${perPage} a page`;
    }
    if (first.lastPage !== undefined && first.lastPage > this.maxPages) {
      throw notAddingUp(`it announces ${first.lastPage} pages, but ${this.#why}`);
    }
    this.accept(first, 1);
  }

  /** Refuses reading page `n` when the first page said the list ends before it. */
  mayRead(n: number): void {
    if (n > this.maxPages) throw notAddingUp(`it still links a page after page ${n - 1}, but ${this.#why}`);
  }

  /**
   * Whether the list ended at page `n` (empty) before the last page the first one announced: the
   * rest would be empty too. With a total announced, the listing's own check sees the shortfall (an
   * edit meanwhile: read again); without one, nothing could tell a partial listing from a whole one.
   */
  endedEarly(page: Page, n: number, first: Page): boolean {
    if (page.records.length > 0 || first.lastPage === undefined || n >= first.lastPage) return false;
    if (first.total === undefined) {
      throw notAddingUp(`page ${n} is empty, but the first page announced ${first.lastPage} pages`);
    }
    return true;
  }

  /** Checks page `n` against the pages before it. */
  accept(page: Page, n: number): void {
    checkAnswer(page, n);
    const size = page.records.length;
    if (n > 1 && size > this.#firstSize) {
      throw notAddingUp(`page ${n} holds ${size} websites, more than the first page's ${this.#firstSize}`);
    }
    this.#records += size;
    if (this.#records > MAX_RECORDS) throw notAddingUp(`more than ${MAX_RECORDS} websites were listed`);
    if (size === 0) return;
    const ids = page.records.map((r) => r.id);
    const signature = JSON.stringify([ids.length, ids[0], ids[ids.length - 1]]);
    if (this.#seen.has(signature)) throw notAddingUp(`page ${n} repeats a page already read`);
    this.#seen.add(signature);
  }
}
