import type { Logger } from 'pino';
import { type DesiredState, type DesiredWebsite, type RemoteWebsite, websiteKey } from '../model/index.js';
import type { ReconcileResult } from '../reconcile/index.js';
import type { WebsiteService } from '../service/index.js';

// The account as the daemon last read it. A full listing of a large account takes minutes at the
// service's rate limit (1,000 pages for 100,000 websites); a one-line edit of the manifest should not
// wait for one. A run triggered by an edit therefore plans against the last listing and re-reads only
// what the edit touched (a show per known website, a lookup per new domain), plus what the daemon
// itself changed since. Periodic resyncs still list everything, and find drift.

/** Websites a page of the service's listing holds. */
const PAGE_SIZE = 100;

export class KnownListing {
  #records: RemoteWebsite[] | undefined;
  /** The manifest the listing was planned with: an edit is what differs from it. */
  #desired: DesiredState | undefined;
  /** Domains this daemon wrote since the listing: their records in it are out of date. */
  #written = new Set<string>();

  /** After a run: the account as it read it, the manifest it planned with, what it changed. */
  remember(result: ReconcileResult, desired: DesiredState): void {
    if (!result.current) {
      this.forget();
      return;
    }
    this.#records = result.current;
    this.#desired = desired;
    this.#written = new Set((result.applied?.outcomes ?? []).map((o) => websiteKey(o.domain)));
  }

  forget(): void {
    this.#records = undefined;
    this.#desired = undefined;
    this.#written.clear();
  }

  /**
   * A read of only what changed since the last listing, or undefined when only a full listing will do
   * (none yet, a global setting changed) or is cheaper (more websites touched than pages).
   */
  targetedRead(desired: DesiredState, service: WebsiteService, logger: Logger) {
    const records = this.#records;
    const show = service.showWebsite?.bind(service);
    if (!records || !this.#desired || !show || !sameGlobals(this.#desired, desired)) return undefined;
    const touched = new Set([...editedDomains(this.#desired, desired), ...this.#written]);
    const pages = Math.max(1, Math.ceil(records.length / PAGE_SIZE));
    if (touched.size >= pages) return undefined;
    return async (): Promise<RemoteWebsite[]> => {
      logger.info(
        { stage: 'service', touched: touched.size, pages },
        'manifest edit: re-reading only the websites it touched',
      );
      const byKey = new Map(records.map((record) => [websiteKey(record.domain), record]));
      // In the run's limiter, as every other read: --concurrency bounds the requests in flight.
      const limit = <T>(work: () => Promise<T>): Promise<T> => (service.limit ? service.limit(work) : work());
      const fresh = await Promise.all(
        [...touched].map((key) => {
          const known = byKey.get(key);
          return limit(() => (known ? show(known.id) : service.findWebsite(key)));
        }),
      );
      const kept = records.filter((record) => !touched.has(websiteKey(record.domain)));
      return [...kept, ...fresh.filter((record): record is RemoteWebsite => record !== undefined)];
    };
  }
}

function sameGlobals(a: DesiredState, b: DesiredState): boolean {
  return (
    a.prune === b.prune &&
    a.deleteDelayMs === b.deleteDelayMs &&
    a.websitesEmpty === b.websitesEmpty &&
    JSON.stringify(a.ignore) === JSON.stringify(b.ignore)
  );
}

/** Domains listed in one manifest and not the other, or listed in both with other settings. */
function editedDomains(before: DesiredState, after: DesiredState): string[] {
  const old = new Map(before.websites.map((w) => [w.domain, fingerprintOf(w)]));
  const edited: string[] = [];
  for (const website of after.websites) {
    if (old.get(website.domain) !== fingerprintOf(website)) edited.push(website.domain);
    old.delete(website.domain);
  }
  return [...edited, ...old.keys()].map(websiteKey);
}

/** The entry's meaning; its place in the file is left out (a line added above moves it). */
function fingerprintOf(website: DesiredWebsite): string {
  const { location: _location, ...meaning } = website;
  return JSON.stringify(meaning);
}
