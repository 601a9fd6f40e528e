import { describe, expect, it } from 'vitest';
import { SimulatorValidationError, startSimulator } from '../../src/simulator/index.js';
import { call, WEBSITES } from './helpers.js';

describe('request log', () => {
  it('records method, path, query, body, headers, status and time of every request', async () => {
    const sim = await startSimulator({ now: () => 1_700_000_000_000 });
    try {
      await call(sim, 'GET', WEBSITES, { query: { per_page: '100', page: '1' } });
      await call(sim, 'POST', WEBSITES, {
        form: { domain: 'example.com', exclude_ips: '10.0.0.1\n10.0.0.2' },
      });
      await call(sim, 'DELETE', `${WEBSITES}/42`);
      expect(sim.requests).toHaveLength(3);
      const [list, store, remove] = sim.requests;
      expect(list).toMatchObject({
        method: 'GET',
        path: WEBSITES,
        query: { per_page: '100', page: '1' },
        body: undefined,
        status: 200,
        at: 1_700_000_000_000,
      });
      expect(list?.headers.authorization).toBe('Bearer test-key');
      expect(list?.headers.accept).toBe('application/json');
      expect(store).toMatchObject({
        method: 'POST',
        query: {},
        body: { domain: 'example.com', exclude_ips: '10.0.0.1\n10.0.0.2' },
        status: 201,
      });
      expect(store?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(remove).toMatchObject({ method: 'DELETE', path: `${WEBSITES}/42`, status: 404 });
    } finally {
      await sim.close();
    }
  });

  it('records refused requests too, and can be cleared', async () => {
    const sim = await startSimulator();
    try {
      await call(sim, 'GET', WEBSITES, { key: null });
      expect(sim.requests.map((r) => r.status)).toEqual([401]);
      sim.clearRequests();
      expect(sim.requests).toHaveLength(0);
      await call(sim, 'GET', WEBSITES);
      expect(sim.requests).toHaveLength(1);
    } finally {
      await sim.close();
    }
  });
});

describe('onRequest hook', () => {
  it('lets a test change the account between two pages, as a web UI user would', async () => {
    const websites = Array.from({ length: 15 }, (_, i) => ({ domain: `site${i + 1}.example` }));
    const sim = await startSimulator({ websites });
    try {
      sim.onRequest = (req) => {
        if (req.query.page === '2') sim.createWebsite({ domain: 'late.example' });
      };
      const first = await call(sim, 'GET', WEBSITES, { query: { page: '1' } });
      const second = await call(sim, 'GET', WEBSITES, { query: { page: '2' } });
      expect(first.json.meta.total).toBe(15);
      expect(second.json.meta.total).toBe(16);
      // The newest record pushes one already seen on page 1 onto page 2.
      expect(second.json.data[0].id).toBe(first.json.data[9].id);
    } finally {
      await sim.close();
    }
  });

  it('is awaited when async, and a throwing hook answers 500', async () => {
    const sim = await startSimulator();
    try {
      sim.onRequest = async () => {
        await Promise.resolve();
        sim.createWebsite({ domain: 'from-hook.example' });
      };
      const { json } = await call(sim, 'GET', WEBSITES);
      expect(json.data.map((w: { domain: string }) => w.domain)).toEqual(['from-hook.example']);
      sim.onRequest = () => {
        throw new Error('boom');
      };
      expect((await call(sim, 'GET', WEBSITES)).status).toBe(500);
      expect(sim.requests.at(-1)?.status).toBe(500);
    } finally {
      await sim.close();
    }
  });
});

describe('direct access', () => {
  it('creates, updates and deletes through the service rules without recording requests', async () => {
    const sim = await startSimulator({ takenDomains: ['taken.example'] });
    try {
      const created = sim.createWebsite({
        domain: 'https://www.Example.com',
        privacy: 2,
        password: 'pw',
        exclude_params: ['utm_source', 'fbclid'],
        exclude_bots: false,
      });
      expect(created).toMatchObject({
        id: 1,
        domain: 'example.com',
        privacy: 2,
        password: 'pw',
        exclude_bots: 0,
        exclude_params: 'utm_source\nfbclid',
      });
      expect(sim.updateWebsite(1, { exclude_ips: ['10.0.0.1'], email: true })).toMatchObject({
        exclude_ips: '10.0.0.1',
        email: 1,
        privacy: 2,
      });
      expect(() => sim.createWebsite({ domain: 'taken.example' })).toThrow(SimulatorValidationError);
      expect(() => sim.updateWebsite(99, { email: true })).toThrow(/no website with id 99/);
      expect(sim.deleteWebsite(1)).toBe(true);
      expect(sim.deleteWebsite(1)).toBe(false);
      expect(sim.requests).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });

  it('hands out copies, so tests cannot change the account by accident', async () => {
    const sim = await startSimulator({ websites: [{ domain: 'example.com' }] });
    try {
      const [copy] = sim.listWebsites();
      if (copy) copy.domain = 'changed.example';
      expect(sim.listWebsites()[0]?.domain).toBe('example.com');
    } finally {
      await sim.close();
    }
  });

  it('refuses seed websites the service would refuse', async () => {
    await expect(startSimulator({ websites: [{ domain: 'a.example', privacy: 2 }] })).rejects.toThrow(
      'The password field is required.',
    );
  });
});
