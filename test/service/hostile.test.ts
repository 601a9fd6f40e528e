import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectService } from '../../src/service/index.js';
import { startSocks5 } from '../helpers/socks5.js';

// Hostile answers end in bounded time with a clear message (issue 10 §6): a small fake server on
// loopback answers the shapes the simulator never would.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Handler = (req: IncomingMessage, res: ServerResponse, page: number) => void;

/**
 * The service client against `handler`: directly on loopback, or with `through: 'socks5'` as a service
 * elsewhere (stats.example.test) reached through a SOCKS5 proxy from the environment, for which undici
 * builds a connection pool of its own.
 */
async function fake(handler: Handler, timeoutMs = 2_000, through?: 'socks5') {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
    handler(req, res, page);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(
    () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );
  const { port } = server.address() as AddressInfo;
  let baseUrl = `http://127.0.0.1:${port}`;
  if (through === 'socks5') {
    const socks = await startSocks5(port);
    cleanups.push(() => socks.close());
    const before = process.env.HTTP_PROXY;
    // Read when the client is made (undici's EnvHttpProxyAgent), and put back at once.
    process.env.HTTP_PROXY = `socks5://127.0.0.1:${socks.port}`;
    cleanups.push(async () => {
      if (before === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = before;
    });
    baseUrl = 'http://stats.example.test';
  }
  const client = connectService({
    baseUrl,
    apiKey: 'k',
    version: 'test',
    timeoutMs,
    concurrency: 4,
    redact: (text) => text,
  });
  cleanups.push(() => client.close());
  return { service: client.service, requests: () => requests };
}

const record = (id: number) => ({
  id,
  domain: `s${id}.example.com`,
  privacy: 1,
  email: 0,
  exclude_bots: 1,
  password: false,
});
const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('paging that never ends', () => {
  it('a next link on every page, without last_page, total or page numbers: stops at a repeated page', async () => {
    const { service, requests } = await fake((_req, res) =>
      json(res, { data: [record(1)], next_page_url: 'http://x/?page=2' }),
    );
    await expect(service.listWebsites()).rejects.toThrow(
      /do not add up \(page 2 repeats a page already read\)/,
    );
    expect(requests()).toBe(2);
  });

  // The audit's repro: ~30,500 requests in 20 s, because the next page asked for was the service's
  // current_page + 1, and the repeat check included that number.
  it('current_page always 1 with new websites every time: stops at page 2, naming the numbers', async () => {
    let serial = 0;
    const { service, requests } = await fake((_req, res) => {
      const data = Array.from({ length: 100 }, () => record(++serial));
      json(res, { data, current_page: 1, per_page: 100, total: 300, next_page_url: 'http://x/?page=2' });
    });
    await expect(service.listWebsites()).rejects.toThrow(
      "GET /api/v1/websites: the listing's answers do not add up (page 2 was asked for, the answer says it is page 1); nothing was planned from it",
    );
    expect(requests()).toBe(2);
  });

  it('no page numbers, new websites every time: stops where the total says the list ends', async () => {
    let serial = 0;
    const { service, requests } = await fake((_req, res) => {
      const data = Array.from({ length: 100 }, () => record(++serial));
      json(res, { data, total: 300, next_page_url: 'http://x/?page=next' });
    });
    await expect(service.listWebsites()).rejects.toThrow(
      /still links a page after page 5, but the first page says 300 websites at 100 a page/,
    );
    expect(requests()).toBe(5);
  });

  it.each([
    [
      'more websites than its per_page',
      { data: [record(1), record(2)], per_page: 1, total: 2 },
      /page 1 holds 2 websites, but says 1 a page/,
    ],
    ['a per_page of 0', { data: [], per_page: 0, total: 0 }, /page 1 holds 0 websites, but says 0 a page/],
    ['a negative total', { data: [record(1)], total: -5 }, /page 1 announces -5 websites/],
    ['a last_page of 0', { data: [record(1)], last_page: 0 }, /page 1 announces 0 pages/],
  ])('a first page with %s: refused at once', async (_name, body, message) => {
    const { service, requests } = await fake((_req, res) => json(res, { current_page: 1, ...body }));
    await expect(service.listWebsites()).rejects.toThrow(message);
    expect(requests()).toBe(1);
  });

  it('a later page larger than the first: refused (a page never grows)', async () => {
    const { service } = await fake((_req, res, page) =>
      json(res, {
        data: page === 1 ? [record(1)] : [record(2), record(3)],
        current_page: page,
        next_page_url: page === 1 ? 'http://x/?page=2' : null,
      }),
    );
    await expect(service.listWebsites()).rejects.toThrow(
      /page 2 holds 2 websites, more than the first page's 1/,
    );
  });

  it('last_page 50 without a total, page 2 empty: refused rather than planned from a partial list', async () => {
    const { service, requests } = await fake((_req, res, page) =>
      json(res, { data: page === 1 ? [record(1)] : [], current_page: page, last_page: 50 }),
    );
    await expect(service.listWebsites()).rejects.toThrow(
      /page 2 is empty, but the first page announced 50 pages/,
    );
    expect(requests()).toBeLessThan(10);
  });

  it('a next link on every page with new records: stops where the total says the list ends', async () => {
    const { service, requests } = await fake((_req, res, page) =>
      json(res, { data: [record(page)], current_page: page, total: 3, next_page_url: 'http://x/?page=next' }),
    );
    await expect(service.listWebsites()).rejects.toThrow(
      /still links a page after page 5, but the first page says 3 websites at 1 a page/,
    );
    expect(requests()).toBeLessThan(20);
  });

  it.each([
    [{ total: 50 }, /announces 1000000000 pages, but the first page says 50 websites at 1 a page/],
    [{}, /announces 1000000000 pages, but at most 100000 pages are read/],
  ])('last_page 1000000000 (%j): refused at once, no promise per page', async (extra, message) => {
    const { service, requests } = await fake((_req, res) =>
      json(res, { data: [record(1)], current_page: 1, last_page: 1_000_000_000, ...extra }),
    );
    await expect(service.listWebsites()).rejects.toThrow(message);
    expect(requests()).toBeLessThan(10);
  });
});

describe('a total that lies', () => {
  it('the same way at every read: the answers do not add up, not "the listing kept changing"', async () => {
    const { service, requests } = await fake((_req, res) =>
      json(res, { data: [record(1), record(2), record(3)], current_page: 1, last_page: 1, total: 5 }),
    );
    const error = await service.listWebsites().catch((e: Error) => e);
    expect((error as Error).message).toBe(
      "GET /api/v1/websites: the listing's answers do not add up (3 collected, 5 announced, the same in 3 reads of the same websites); nothing was planned from it",
    );
    expect(requests()).toBe(3);
  });

  it('differently at each read: the listing kept changing', async () => {
    let reads = 0;
    const { service } = await fake((_req, res) =>
      json(res, { data: [record(1), record(2)], current_page: 1, last_page: 1, total: 3 + reads++ }),
    );
    await expect(service.listWebsites()).rejects.toThrow(
      /the listing kept changing while paging \(2 collected, 5 announced\)/,
    );
  });
});

/** An answer whose body never ends: blanks, a megabyte at a time, as fast as they are read. */
const endlessBody: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const pump = () => {
    while (res.write(chunk)) if (res.destroyed) return;
  };
  res.on('drain', pump);
  pump();
};

describe('bodies that never end', () => {
  it('a body sent a byte at a time: bounded by --timeout as a whole, not between chunks', async () => {
    const { service } = await fake((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    }, 500);
    await expect(service.listWebsites()).rejects.toThrow(
      /the whole response did not arrive within 0\.5s; see --timeout/,
    );
  });

  it('an endless body: cut off at the size limit with a clear message', async () => {
    const { service } = await fake(endlessBody, 30_000);
    await expect(service.listWebsites()).rejects.toThrow(/longer than 8 MiB; stopped reading it/);
  });
});

// Through a SOCKS5 proxy, undici dispatches to a pool it makes itself, without the options the
// client's agent was made with: each attempt carries its own bounds.
describe('through a SOCKS5 proxy, the same bounds', () => {
  it('an answer that never comes: bounded by --timeout', async () => {
    const { service, requests } = await fake(() => {}, 500, 'socks5');
    await expect(service.listWebsites()).rejects.toThrow(/no response within 0\.5s; see --timeout/);
    expect(requests()).toBeGreaterThan(0);
  });

  it('an endless body: cut off at the size limit', async () => {
    const { service } = await fake(endlessBody, 30_000, 'socks5');
    await expect(service.listWebsites()).rejects.toThrow(/longer than 8 MiB; stopped reading it/);
  });
});

describe('ids are opaque', () => {
  it('lists, updates and deletes websites whose ids are not numbers', async () => {
    const records = [
      { ...record(1), id: 'w_7f3a' },
      { ...record(2), id: '0b8e-4c1d' },
    ];
    const seen: string[] = [];
    const { service } = await fake((req, res) => {
      seen.push(`${req.method} ${req.url?.split('?')[0]}`);
      if (req.method === 'GET') json(res, { data: records, current_page: 1, last_page: 1, total: 2 });
      else json(res, { data: { ...records[0], email: 1 }, id: 'w_7f3a', deleted: true });
    });
    const listed = await service.listWebsites();
    expect(listed.map((r) => r.id)).toEqual(['w_7f3a', '0b8e-4c1d']);
    await service.updateWebsite('w_7f3a', { email: true });
    await service.deleteWebsite('0b8e-4c1d');
    expect(seen.slice(1)).toEqual(['PATCH /api/v1/websites/w_7f3a', 'DELETE /api/v1/websites/0b8e-4c1d']);
  });
});

describe('redirects say where they pointed', () => {
  it.each([
    [
      301,
      'https://elsewhere.example.net/api/v1/websites',
      /answered 301 redirecting to https:\/\/elsewhere\.example\.net\/api\/v1\/websites on another host .*; redirects are not followed/,
    ],
    [
      302,
      '/dashboard',
      /answered 302 redirecting to http:\/\/127\.0\.0\.1:\d+\/dashboard; redirects are not followed/,
    ],
    [302, 'http://[bad', /answered 302 redirecting to http:\/\/\[bad \(not a valid address\); redirects/],
    [302, 'http://%zz/', /answered 302 redirecting to http:\/\/%zz\/ \(not a valid address\); redirects/],
    [
      302,
      'javascript:alert(1)',
      /answered 302 redirecting to javascript:alert\(1\) \(not a web address\); redirects/,
    ],
  ])('a %i to %s is not "the API key was not accepted"', async (status, location, message) => {
    const { service, requests } = await fake((_req, res) => {
      res.writeHead(status, { location });
      res.end();
    });
    const error = await service.listWebsites().catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(/API key was not accepted/);
    expect(error?.constructor.name).toBe('ServiceError');
    expect(requests()).toBe(1);
  });
});
