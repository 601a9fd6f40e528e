// The guards' reads through the real client against the simulator (issue 20): the account's plan limit,
// a website's visitors, what "unknown" covers, and a key rotated part-way.
import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpWebsiteService } from '../../src/service/client.js';
import { HttpTransport } from '../../src/service/http.js';
import { AuthError, NotSentError } from '../../src/service/index.js';
import { type EndpointFault, type Simulator, startSimulator } from '../../src/simulator/index.js';

let simulator: Simulator;
let http: HttpTransport;
afterEach(async () => {
  await http?.close();
  await simulator?.close();
});

const NOW = Date.parse('2026-11-26T12:00:00Z');
const WINDOW = { days: 30, now: NOW };

async function connect(
  options: Parameters<typeof startSimulator>[0] = {},
  clientKey?: string,
): Promise<HttpWebsiteService> {
  simulator = await startSimulator({ now: () => NOW, ...options });
  http = new HttpTransport({
    baseUrl: simulator.url,
    apiKey: clientKey ?? simulator.apiKey,
    userAgent: 'websites-sync/test',
    timeoutMs: 2_000,
    retry: { minDelayMs: 5, maxDelayMs: 20 },
  });
  return new HttpWebsiteService(http, { limit: pLimit(2) });
}

describe('readPlanLimit', () => {
  it('reads features.websites in one request: a count, or -1 for unlimited', async () => {
    const service = await connect({ maxWebsites: 50 });
    expect(await service.readPlanLimit()).toEqual({ kind: 'limited', websites: 50 });
    simulator.setMaxWebsites(undefined);
    expect(await service.readPlanLimit()).toEqual({ kind: 'unlimited' });
    expect(simulator.requests.map((r) => r.path)).toEqual(['/api/v1/account', '/api/v1/account']);
  });

  it.each<[EndpointFault, RegExp]>([
    [404, /answered 404/],
    [500, /answered 500/],
    ['unreadable', /no plan\.features\.websites/],
  ])('is unknown when the endpoint answers %s, after one request', async (fault, reason) => {
    const service = await connect({ faults: { accountFault: fault } });
    const limit = await service.readPlanLimit();
    expect(limit).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(reason) });
    expect(simulator.requests).toHaveLength(1);
  });
});

describe('readTraffic', () => {
  it('sums the visitors of the window in one request; none is 0', async () => {
    const service = await connect({
      websites: [{ domain: 'shop.example.com', visitors_last_30d: 1204 }, { domain: 'quiet.example' }],
    });
    expect(await service.readTraffic(1, WINDOW)).toEqual({ kind: 'known', visitors: 1204 });
    expect(await service.readTraffic(2, WINDOW)).toEqual({ kind: 'known', visitors: 0 });
    expect(simulator.requests[0]?.query).toMatchObject({
      name: 'visitors',
      from: '2026-10-27',
      to: '2026-11-27',
      per_page: '100',
    });
    expect(simulator.requests).toHaveLength(2);
  });

  it.each<[EndpointFault, RegExp]>([
    [404, /answered 404/],
    [500, /answered 500/],
    ['unreadable', /no visitor counts/],
  ])('is unknown, never 0, when the endpoint answers %s (the 500 is not retried)', async (fault, reason) => {
    const service = await connect({
      websites: [{ domain: 'shop.example.com', visitors_last_30d: 5 }],
      faults: { statsFault: fault },
    });
    const traffic = await service.readTraffic(1, WINDOW);
    expect(traffic).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(reason) });
    expect(simulator.requests).toHaveLength(1);
  });

  it('a 503 on every try is unknown and transient (a passing failure); a 500 or 404 is not', async () => {
    const service = await connect({
      websites: [{ domain: 'shop.example.com', visitors_last_30d: 5 }],
      faults: { statsFault: 503 },
    });
    expect(await service.readTraffic(1, WINDOW)).toEqual({
      kind: 'unknown',
      reason: 'the service answered 503',
      transient: true,
    });
    simulator.setFaults({ statsFault: 500 });
    expect(await service.readTraffic(1, WINDOW)).not.toHaveProperty('transient');
  });

  it.each([
    ['a negative count', { data: [{ value: '2026-11-20', count: '-5' }], status: 200 }],
    [
      'a count below zero beside others',
      {
        data: [
          { value: '2026-11-20', count: 0 },
          { value: null, count: -1 },
        ],
      },
    ],
    [
      'no rows on a page that says 4 exist',
      { data: [], links: { next: null }, meta: { current_page: 1, last_page: 1, total: 4 }, status: 200 },
    ],
    [
      'no rows beside a next page',
      { data: [], current_page: 1, next_page_url: 'http://x/api/v1/stats/1?page=2' },
    ],
  ])('an answer with %s is unknown, never 0 visitors', async (_, body) => {
    const service = await connect({
      websites: [{ domain: 'shop.example.com' }],
      faults: { statsFault: { body } },
    });
    expect(await service.readTraffic(1, WINDOW)).toMatchObject({ kind: 'unknown' });
  });

  it.each([
    ['a row without a value', { data: [{ count: '5' }] }, 5],
    ['a value of another type', { data: [{ value: 20261120, count: 5 }] }, 5],
    ['a row that cannot be read beside rows that can', { data: [{ count: 12 }, { count: -1 }, 'x'] }, 12],
  ])('visitors in an answer with %s are read, not made unknown', async (_, body, visitors) => {
    const service = await connect({
      websites: [{ domain: 'shop.example.com' }],
      faults: { statsFault: { body } },
    });
    expect(await service.readTraffic(1, WINDOW)).toEqual({ kind: 'known', visitors });
  });

  it('visitors on the first page are read although the answer says there are more pages', async () => {
    const body = {
      data: [{ value: '2026-11-20', count: '7' }],
      meta: { total: 40 },
      links: { next: 'p2' },
    };
    const service = await connect({
      websites: [{ domain: 'shop.example.com' }],
      faults: { statsFault: { body } },
    });
    expect(await service.readTraffic(1, WINDOW)).toEqual({ kind: 'known', visitors: 7 });
  });

  it('a refused key is not "unknown": it stops the run', async () => {
    const service = await connect({ websites: [{ domain: 'a.example' }] }, 'other');
    await expect(service.readTraffic(1, WINDOW)).rejects.toBeInstanceOf(AuthError);
  });
});

describe('a key rotated part-way', () => {
  it('says so plainly, and sends nothing more: later requests fail before being sent', async () => {
    const service = await connect({ websites: [{ domain: 'a.example' }, { domain: 'b.example' }] });
    await service.listWebsites();
    simulator.setApiKey('regenerated');
    const refused = await service.deleteWebsite(1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthError);
    expect((refused as Error).message).toMatch(
      /refused the API key \(401 Unauthenticated\.\)\. This came part-way through the run.*rotated or revoked/,
    );
    const after = simulator.requests.length;
    const next = await service.deleteWebsite(2).catch((error: unknown) => error);
    expect(next).toBeInstanceOf(AuthError);
    expect((next as Error).message).toMatch(/not sent/);
    expect(next).not.toBeInstanceOf(NotSentError);
    expect(simulator.requests).toHaveLength(after);
  });

  it('a key refused from the first request is just refused (not "rotated")', async () => {
    const service = await connect({}, 'other');
    const refused = await service.listWebsites().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthError);
    expect((refused as Error).message).not.toMatch(/rotated/);
  });
});
