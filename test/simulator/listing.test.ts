import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { call, type Json, WEBSITES } from './helpers.js';

// 27 websites: ids 1..27, domains in reverse alphabetical order of id so the two sorts differ.
const SEEDS = Array.from({ length: 27 }, (_, i) => ({
  domain: `site-${99 - i}${i % 3 === 0 ? '-shop' : ''}.example.com`,
}));

describe('list, resource collection shape', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ websites: SEEDS });
  });
  afterAll(() => sim.close());

  it('answers the first page by id descending, 10 per page, with links and meta', async () => {
    const { status, json } = await call(sim, 'GET', WEBSITES);
    expect(status).toBe(200);
    expect(Object.keys(json).sort()).toEqual(['data', 'links', 'meta', 'status']);
    expect(json.status).toBe(200);
    expect(json.data.map((w: Json) => w.id)).toEqual([27, 26, 25, 24, 23, 22, 21, 20, 19, 18]);
    expect(json.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 3,
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        ...[1, 2, 3].map((n) => ({
          url: expect.stringContaining(`page=${n}`),
          label: String(n),
          active: n === 1,
        })),
        { url: expect.stringContaining('page=2'), label: 'Next &raquo;', active: false },
      ],
      path: `${sim.url}${WEBSITES}`,
      per_page: 10,
      to: 10,
      total: 27,
    });
    expect(json.links.prev).toBeNull();
    expect(new URL(json.links.next).searchParams.get('page')).toBe('2');
    expect(new URL(json.links.last).searchParams.get('page')).toBe('3');
  });

  it('returns records with exactly the service fields', async () => {
    const { json } = await call(sim, 'GET', WEBSITES);
    expect(Object.keys(json.data[0]).sort()).toEqual(
      [
        'created_at',
        'domain',
        'email',
        'exclude_bots',
        'exclude_ips',
        'favorite',
        'favorited_at',
        'id',
        'password',
        'privacy',
        'updated_at',
      ].sort(),
    );
  });

  it.each(['7', '1000', 'abc', '0'])('falls back to 10 per page for per_page=%s', async (perPage) => {
    const { json } = await call(sim, 'GET', WEBSITES, { query: { per_page: perPage } });
    expect(json.data).toHaveLength(10);
    expect(json.meta.per_page).toBe(10);
  });

  it('honours an allowed per_page', async () => {
    const { json } = await call(sim, 'GET', WEBSITES, { query: { per_page: '25' } });
    expect(json.data).toHaveLength(25);
    // Passed on from the request, so a string; the default (above) is an integer.
    expect(json.meta).toMatchObject({ per_page: '25', last_page: 2 });
  });

  it('answers the last page partially and a page past the end empty', async () => {
    const last = await call(sim, 'GET', WEBSITES, { query: { page: '3' } });
    expect(last.json.data.map((w: Json) => w.id)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(last.json.meta).toMatchObject({ current_page: 3, from: 21, to: 27 });
    expect(last.json.links.next).toBeNull();
    const past = await call(sim, 'GET', WEBSITES, { query: { page: '9' } });
    expect(past.json.data).toEqual([]);
    expect(past.json.meta).toMatchObject({ current_page: 9, from: null, to: null, total: 27 });
  });

  it('lets a client walk every page through links.next, keeping the query', async () => {
    const ids: number[] = [];
    let next: string | null = `${sim.url}${WEBSITES}?per_page=10&sort=asc`;
    while (next) {
      const response = await fetch(next, {
        headers: { Authorization: 'Bearer test-key', Accept: 'application/json' },
      });
      const page: Json = await response.json();
      ids.push(...page.data.map((w: Json) => w.id));
      next = page.links.next;
    }
    expect(ids).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
  });

  it('sorts by domain in both directions', async () => {
    const asc = await call(sim, 'GET', WEBSITES, {
      query: { sort_by: 'domain', sort: 'asc', per_page: '100' },
    });
    const domains = asc.json.data.map((w: Json) => w.domain);
    expect(domains).toEqual([...domains].sort());
    const desc = await call(sim, 'GET', WEBSITES, {
      query: { sort_by: 'domain', sort: 'desc', per_page: '100' },
    });
    expect(desc.json.data.map((w: Json) => w.domain)).toEqual([...domains].reverse());
  });

  it('falls back to id descending for unknown sort values', async () => {
    const { json } = await call(sim, 'GET', WEBSITES, { query: { sort_by: 'created_at', sort: 'sideways' } });
    expect(json.data[0].id).toBe(27);
  });

  it('searches by substring of the domain, case-insensitively', async () => {
    const { json } = await call(sim, 'GET', WEBSITES, {
      query: { search: 'SHOP', search_by: 'domain', per_page: '100' },
    });
    expect(json.meta.total).toBe(9);
    for (const w of json.data) expect(w.domain).toContain('-shop.');
    expect(new URL(json.links.first).searchParams.get('search')).toBe('SHOP');
  });
});

describe('list, plain paginator shape', () => {
  it('puts the pagination fields at the top level', async () => {
    const sim = await startSimulator({ websites: SEEDS, listShape: 'paginator' });
    try {
      const { json } = await call(sim, 'GET', WEBSITES, { query: { page: '2' } });
      expect(Object.keys(json).sort()).toEqual(
        [
          'current_page',
          'data',
          'first_page_url',
          'from',
          'last_page',
          'last_page_url',
          'next_page_url',
          'path',
          'per_page',
          'prev_page_url',
          'to',
          'total',
        ].sort(),
      );
      expect(json).toMatchObject({
        current_page: 2,
        from: 11,
        to: 20,
        last_page: 3,
        total: 27,
        per_page: 10,
      });
      expect(new URL(json.next_page_url).searchParams.get('page')).toBe('3');
      expect(new URL(json.prev_page_url).searchParams.get('page')).toBe('1');
      expect(json.data.map((w: Json) => w.id)).toEqual([17, 16, 15, 14, 13, 12, 11, 10, 9, 8]);
    } finally {
      await sim.close();
    }
  });

  it('uses the configured default page size as the fallback', async () => {
    const sim = await startSimulator({ websites: SEEDS, listShape: 'paginator', defaultPerPage: 25 });
    try {
      const { json } = await call(sim, 'GET', WEBSITES, { query: { per_page: '7' } });
      expect(json.per_page).toBe(25);
      expect(json.data).toHaveLength(25);
    } finally {
      await sim.close();
    }
  });
});
