// The two read endpoints the guards use (issue 20 §3): the account's plan and a website's visitors,
// as the service's AccountResource, SelectStatsRequest and StatController answer them.
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { call } from './helpers.js';

let sim: Simulator;
afterEach(() => sim?.close());

const NOW = Date.parse('2026-11-26T12:00:00Z');
const start = async (options: SimulatorOptions) => {
  sim = await startSimulator({ now: () => NOW, ...options });
};
const visitors = (id: number | string, query: Record<string, string> = {}) =>
  call(sim, 'GET', `/api/v1/stats/${id}`, {
    query: { name: 'visitors', from: '2026-10-27', to: '2026-11-26', per_page: '100', ...query },
  });
const total = (json: { data: Array<{ count: string }> }) =>
  json.data.reduce((n, r) => n + Number(r.count), 0);

describe('GET /api/v1/account', () => {
  it('tells the plan limit (--max-websites) in features.websites, wrapped with status 200', async () => {
    await start({ maxWebsites: 50 });
    const { status, json } = await call(sim, 'GET', '/api/v1/account');
    expect(status).toBe(200);
    expect(json.status).toBe(200);
    expect(Object.keys(json.data)).toEqual([
      'id',
      'name',
      'email',
      'avatar_url',
      'locale',
      'timezone',
      'plan',
      'created_at',
    ]);
    expect(json.data.plan.features).toEqual({
      pageviews: -1,
      websites: 50,
      email_reports: 1,
      data_export: 1,
      api: 1,
    });
  });

  it('says -1 when the account is unlimited; needs the key; only GET', async () => {
    await start({});
    expect((await call(sim, 'GET', '/api/v1/account')).json.data.plan.features.websites).toBe(-1);
    expect((await call(sim, 'GET', '/api/v1/account', { key: 'wrong' })).status).toBe(401);
    expect((await call(sim, 'POST', '/api/v1/account')).status).toBe(405);
  });

  it.each([
    [404, 404],
    [500, 500],
    ['unreadable', 200],
  ] as const)('fault %s answers %s', async (fault, status) => {
    await start({ faults: { accountFault: fault } });
    const answer = await call(sim, 'GET', '/api/v1/account');
    expect(answer.status).toBe(status);
    expect(answer.json?.data?.plan?.features).toBeUndefined();
  });
});

describe('GET /api/v1/stats/{id}?name=visitors', () => {
  it('sums a seeded website’s visitors_last_30d per date; a website without traffic has no rows', async () => {
    await start({
      websites: [{ domain: 'shop.example.com', visitors_last_30d: 1204 }, { domain: 'quiet.example' }],
    });
    const shop = await visitors(1);
    expect(shop.status).toBe(200);
    expect(shop.json.data).toHaveLength(30);
    expect(typeof shop.json.data[0].count).toBe('string');
    expect(total(shop.json)).toBe(1204);
    expect(shop.json.meta).toMatchObject({ current_page: 1, last_page: 1, total: 30 });
    expect((await visitors(2)).json.data).toEqual([]);
    // A week sees only its share.
    expect(total((await visitors(1, { from: '2026-11-20' })).json)).toBeLessThan(1204);
  });

  it('validates before looking the website up (422 with the error bag as message), then 404s', async () => {
    await start({ websites: [{ domain: 'a.example' }] });
    const bad = await visitors(99, { name: 'nope', to: '2026-01-01' });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toMatchObject({
      name: ['The selected name is invalid.'],
      to: ['The to must be a date after or equal to from.'],
    });
    const missing = await visitors(99);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ message: 'Resource not found.', status: 404 });
  });

  it('forgets the statistics of a deleted website', async () => {
    await start({ websites: [{ domain: 'a.example', visitors_last_30d: 10 }] });
    expect((await call(sim, 'DELETE', '/api/v1/websites/1')).status).toBe(200);
    sim.createWebsite({ domain: 'a.example' });
    expect((await visitors(2)).json.data).toEqual([]);
  });

  it.each([
    [404, 404],
    [500, 500],
    ['unreadable', 200],
  ] as const)('fault %s answers %s without the rows', async (fault, status) => {
    await start({
      websites: [{ domain: 'a.example', visitors_last_30d: 10 }],
      faults: { statsFault: fault },
    });
    const answer = await visitors(1);
    expect(answer.status).toBe(status);
    expect(Array.isArray(answer.json?.data)).toBe(false);
  });
});

describe('rotateKeyAfter', () => {
  it('regenerates the key after that many accepted requests: the old key answers 401 from then on', async () => {
    await start({ faults: { rotateKeyAfter: 2 } });
    const key = sim.apiKey;
    expect((await call(sim, 'GET', '/api/v1/websites', { key })).status).toBe(200);
    expect((await call(sim, 'GET', '/api/v1/account', { key })).status).toBe(200);
    expect((await call(sim, 'GET', '/api/v1/websites', { key })).status).toBe(401);
    expect(sim.apiKey).not.toBe(key);
  });

  it('counts from when it is set, and regenerates the key to the one given (rotatedKey)', async () => {
    await start({});
    const key = sim.apiKey;
    expect((await call(sim, 'GET', '/api/v1/websites', { key })).status).toBe(200);
    sim.setFaults({ rotateKeyAfter: 1, rotatedKey: 'the-new-key' });
    expect((await call(sim, 'GET', '/api/v1/websites', { key })).status).toBe(200);
    expect((await call(sim, 'GET', '/api/v1/websites', { key })).status).toBe(401);
    expect(sim.apiKey).toBe('the-new-key');
    expect((await call(sim, 'GET', '/api/v1/websites', { key: 'the-new-key' })).status).toBe(200);
    expect(() => sim.setFaults({ rotatedKey: 'a key' })).toThrow(/printable ASCII without spaces/);
  });
});
