import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpWebsiteService } from '../../src/service/client.js';
import { HttpTransport } from '../../src/service/http.js';
import { checkPages } from '../../src/service/listing.js';
import type { Page } from '../../src/service/paging.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';

function page(n: number, ids: number[], total: number): Page {
  return {
    page: n,
    records: ids.map((id) => ({ id, domain: `site${id}.example.com` })),
    lastPage: undefined,
    total,
    hasNext: false,
  };
}

describe('checkPages', () => {
  it('accepts pages that add up to the total', () => {
    expect(checkPages([page(1, [1, 2], 3), page(2, [3], 3)])).toMatchObject({ pages: 2, problem: undefined });
  });

  it.each([
    ['a total that changed', [page(1, [1, 2], 3), page(2, [4], 2)], 'the total went from 3 to 2'],
    ['fewer records than announced', [page(1, [1, 2], 4), page(2, [4], 4)], '3 collected, 4 announced'],
    ['a record on two pages', [page(1, [1, 2], 3), page(2, [2, 3], 3)], 'website 2 appeared on two pages'],
  ])('rejects %s', (_, pages, problem) => {
    expect(checkPages(pages).problem).toBe(problem);
  });

  // Issue 19 §4: the service can hold `Shop.example.com` beside `shop.example.com` (stored before it
  // lower-cased names): records are told apart by id, and such a pair is two websites, not an edit.
  it('keeps two ids under one name apart in case: two websites, not a listing that changed', () => {
    const pages = [
      page(1, [1], 2),
      { ...page(2, [2], 2), records: [{ id: 2, domain: 'SITE1.example.com' }] },
    ];
    expect(checkPages(pages)).toMatchObject({ problem: undefined, pages: 2 });
    expect(checkPages(pages).records.map((r) => r.id)).toEqual([1, 2]);
  });
});

describe('HttpWebsiteService listing while someone edits the account', () => {
  let simulator: Simulator;
  let http: HttpTransport;
  let service: HttpWebsiteService;

  async function start(count: number): Promise<void> {
    const websites = Array.from({ length: count }, (_, i) => ({ domain: `site${i + 1}.example.com` }));
    simulator = await startSimulator({ websites });
    http = new HttpTransport({
      baseUrl: simulator.url,
      apiKey: simulator.apiKey,
      userAgent: 'websites-sync/test',
      timeoutMs: 5_000,
      connections: 4,
    });
    service = new HttpWebsiteService(http, { limit: pLimit(4) });
  }

  /** Runs `edit` once, when the first page after page 1 is asked for. */
  function editWhilePaging(edit: () => void): void {
    let done = false;
    simulator.onRequest = (req) => {
      if (done || req.method !== 'GET' || Number(req.query.page) < 2) return;
      done = true;
      edit();
    };
  }

  afterEach(async () => {
    await http.close();
    await simulator.close();
  });

  const domains = (records: Array<{ domain: string }>) => records.map((r) => r.domain).sort();
  const stored = () => domains(simulator.listWebsites());
  const lists = () => simulator.requests.filter((r) => r.method === 'GET').length;

  it('re-lists when a deletion changed the total between pages', async () => {
    await start(250);
    editWhilePaging(() => simulator.deleteWebsite(7));
    expect(domains(await service.listWebsites())).toEqual(stored());
    expect(lists()).toBe(6);
  });

  it('a deletion on page 1 plus an addition at the end leaves no trace; confirmListing finds it', async () => {
    await start(250);
    editWhilePaging(() => {
      simulator.deleteWebsite(5);
      simulator.createWebsite({ domain: 'new.example.com' });
    });
    const torn = await service.listWebsites();
    // Website 101 moved onto page 1 after it was read: this listing misses it and still shows 5.
    expect(torn.map((r) => r.id)).not.toContain(101);
    expect(torn.map((r) => r.id)).toContain(5);
    const confirmed = await service.confirmListing();
    expect(domains(confirmed ?? [])).toEqual(stored());
    // The first re-read disagrees with the torn one; a third agrees with the second.
    expect(lists()).toBe(9);
    expect(await service.confirmListing()).toBeUndefined();
  });

  it('checks only the decisions when that costs fewer requests than another listing', async () => {
    await start(250);
    editWhilePaging(() => {
      simulator.deleteWebsite(5);
      simulator.createWebsite({ domain: 'new.example.com' });
    });
    const torn = await service.listWebsites();
    expect(torn.map((r) => r.id)).not.toContain(101);
    simulator.clearRequests();
    // The plan would create site101 (missing from the torn listing) and delete 5 (still in it).
    const confirmed = await service.confirmListing({ absent: ['site101.example.com'], present: [5] });
    expect(domains(confirmed ?? [])).toEqual(stored());
    // One lookup and one show, instead of three pages read at least twice.
    expect(
      simulator.requests
        .map((r) => `${r.method} ${r.path}${r.query.search ? ` search=${r.query.search}` : ''}`)
        .sort(),
    ).toEqual(['GET /api/v1/websites search=site101.example.com', 'GET /api/v1/websites/5']);
    expect(await service.confirmListing({ absent: [], present: [] })).toBeUndefined();
  });

  it('reads every page again when the decisions outnumber the pages', async () => {
    await start(250);
    await service.listWebsites();
    simulator.clearRequests();
    const absent = ['x1.example.com', 'x2.example.com', 'x3.example.com'];
    expect(domains((await service.confirmListing({ absent, present: [] })) ?? [])).toEqual(stored());
    expect(lists()).toBe(3);
  });

  it('costs one more listing on a quiet account, and nothing for a single page', async () => {
    await start(250);
    await service.listWebsites();
    expect(domains((await service.confirmListing()) ?? [])).toEqual(stored());
    expect(lists()).toBe(6);

    await http.close();
    await simulator.close();
    await start(100);
    await service.listWebsites();
    expect(await service.confirmListing()).toBeUndefined();
    expect(lists()).toBe(1);
  });
});
