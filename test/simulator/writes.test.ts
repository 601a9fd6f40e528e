import { describe, expect, it } from 'vitest';
import { type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { call, WEBSITES } from './helpers.js';

async function withSimulator<T>(
  options: SimulatorOptions,
  body: (sim: Awaited<ReturnType<typeof startSimulator>>) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator(options);
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

describe('store', () => {
  it('canonicalises the domain, stores null for an omitted privacy and email (no seed defaults)', () =>
    withSimulator({}, async (sim) => {
      const { status, json } = await call(sim, 'POST', WEBSITES, {
        form: { domain: 'https://WWW.Example.com' },
      });
      expect(status).toBe(201);
      expect(Object.keys(json)).toEqual(['data']);
      expect(json.data).toMatchObject({
        id: 1,
        domain: 'example.com',
        privacy: null,
        email: null,
        exclude_bots: 1,
        password: false,
        exclude_ips: null,
        favorite: false,
        favorited_at: null,
      });
    }));

  it.each([
    ['http://www.shop.example.com', 'shop.example.com'],
    ['  Blog.WWW.example.com  ', 'blog.www.example.com'],
    ['www.www.dup.example.org', 'dup.example.org'],
    ['www.shop.www.example.net', 'shop.example.net'],
    ['www.awww.example.com', 'aexample.com'],
  ])('stores %j as %j (every http(s):// removed; every www. when it starts with www.)', (input, stored) =>
    withSimulator({}, async (sim) => {
      const { json } = await call(sim, 'POST', WEBSITES, { form: { domain: input } });
      expect(json.data.domain).toBe(stored);
    }),
  );

  it('refuses something that is not a domain', () =>
    withSimulator({}, async (sim) => {
      const { status, json } = await call(sim, 'POST', WEBSITES, { form: { domain: 'example.com/path' } });
      expect(status).toBe(422);
      expect(json.errors).toEqual({ domain: ['Invalid domain name.'] });
    }));

  it('refuses a missing domain', () =>
    withSimulator({}, async (sim) => {
      const { status, json } = await call(sim, 'POST', WEBSITES, { form: { domain: '   ' } });
      expect(status).toBe(422);
      expect(json).toEqual({
        message: 'The domain field is required.',
        errors: { domain: ['The domain field is required.'] },
      });
    }));

  it('refuses a domain held by another account, whatever its spelling', () =>
    withSimulator({ takenDomains: ['taken.example'] }, async (sim) => {
      const { status, json } = await call(sim, 'POST', WEBSITES, {
        form: { domain: 'https://www.Taken.example' },
      });
      expect(status).toBe(422);
      expect(json).toEqual({
        message: 'The domain has already been taken.',
        errors: { domain: ['The domain has already been taken.'] },
      });
      expect(sim.listWebsites()).toEqual([]);
    }));

  it('refuses a domain the account already has', () =>
    withSimulator({ websites: [{ domain: 'example.com' }] }, async (sim) => {
      const { status } = await call(sim, 'POST', WEBSITES, { form: { domain: 'www.example.com' } });
      expect(status).toBe(422);
    }));

  it('enforces the plan limit on domain, and frees room on delete', () =>
    withSimulator(
      { maxWebsites: 2, websites: [{ domain: 'a.example' }, { domain: 'b.example' }] },
      async (sim) => {
        const refused = await call(sim, 'POST', WEBSITES, { form: { domain: 'c.example' } });
        expect(refused.status).toBe(422);
        expect(refused.json.errors.domain).toEqual([
          'You have reached the maximum number of websites allowed by your plan.',
        ]);
        await call(sim, 'DELETE', `${WEBSITES}/1`);
        const accepted = await call(sim, 'POST', WEBSITES, { form: { domain: 'c.example' } });
        expect(accepted.status).toBe(201);
        expect(accepted.json.data.id).toBe(3);
      },
    ));

  it('requires a password for privacy 2 and says only whether one is set', () =>
    withSimulator({}, async (sim) => {
      const refused = await call(sim, 'POST', WEBSITES, { form: { domain: 'a.example', privacy: '2' } });
      expect(refused.status).toBe(422);
      expect(refused.json.errors).toEqual({ password: ['The password field is required.'] });
      const stored = await call(sim, 'POST', WEBSITES, {
        form: { domain: 'a.example', privacy: '2', password: ' s3cret ' },
      });
      expect(stored.status).toBe(201);
      expect(stored.json.data.password).toBe(true);
      expect(stored.text).not.toContain('s3cret');
      // The password is not trimmed by the service's middleware.
      expect(sim.listWebsites()[0]?.password).toBe(' s3cret ');
    }));

  it('refuses a password longer than 128 characters', () =>
    withSimulator({}, async (sim) => {
      const form = { domain: 'a.example', privacy: '2', password: 'x'.repeat(129) };
      const { status, json } = await call(sim, 'POST', WEBSITES, { form });
      expect(status).toBe(422);
      expect(json.errors.password).toEqual(['The password field must not be greater than 128 characters.']);
    }));

  it('validates the integer fields and summarises several errors', () =>
    withSimulator({}, async (sim) => {
      const form = { domain: 'a.example', privacy: '5', exclude_bots: 'yes' };
      const { status, json } = await call(sim, 'POST', WEBSITES, { form });
      expect(status).toBe(422);
      expect(json).toEqual({
        message: 'The privacy field must be between 0 and 2. (and 1 more error)',
        errors: {
          privacy: ['The privacy field must be between 0 and 2.'],
          exclude_bots: ['The exclude bots field must be an integer.'],
        },
      });
    }));

  it('stores exclude_params without ever returning it, and trims multi-line values', () =>
    withSimulator({}, async (sim) => {
      const form = {
        domain: 'a.example',
        exclude_params: 'utm_source\nfbclid\n',
        exclude_ips: '  203.0.113.7\n2001:db8::1 ',
      };
      const { json, text } = await call(sim, 'POST', WEBSITES, { form });
      expect(json.data).not.toHaveProperty('exclude_params');
      expect(text).not.toContain('utm_source');
      expect(json.data.exclude_ips).toBe('203.0.113.7\n2001:db8::1');
      const shown = await call(sim, 'GET', `${WEBSITES}/${json.data.id}`);
      expect(shown.json.data).not.toHaveProperty('exclude_params');
      expect(sim.listWebsites()[0]).toMatchObject({ exclude_params: 'utm_source\nfbclid' });
    }));
});

describe('show, update and delete', () => {
  const seed = {
    domain: 'example.com',
    privacy: 0 as const,
    email: true,
    exclude_params: ['ref'],
    exclude_ips: ['10.0.0.1', '10.0.0.2'],
  };

  it('shows one record', () =>
    withSimulator({ websites: [seed] }, async (sim) => {
      const { status, json } = await call(sim, 'GET', `${WEBSITES}/1`);
      expect(status).toBe(200);
      expect(json).toMatchObject({
        data: { id: 1, domain: 'example.com', exclude_ips: '10.0.0.1\n10.0.0.2' },
        status: 200,
      });
    }));

  it.each(['PATCH', 'PUT'])('%s changes only the fields present in the body', (method) =>
    withSimulator({ websites: [seed] }, async (sim) => {
      const { status, json } = await call(sim, method, `${WEBSITES}/1`, { form: { email: '0' } });
      expect(status).toBe(200);
      expect(json.status).toBe(200);
      // The answer echoes the request's string; the rest is as stored.
      expect(json.data).toMatchObject({
        privacy: 0,
        email: '0',
        exclude_bots: 1,
        exclude_ips: '10.0.0.1\n10.0.0.2',
      });
      expect(sim.listWebsites()[0]).toMatchObject({ exclude_params: 'ref', domain: 'example.com' });
    }),
  );

  it('clears a field sent empty', () =>
    withSimulator({ websites: [seed] }, async (sim) => {
      const { json } = await call(sim, 'PATCH', `${WEBSITES}/1`, {
        form: { exclude_ips: '', exclude_params: '  ' },
      });
      expect(json.data.exclude_ips).toBeNull();
      expect(sim.listWebsites()[0]).toMatchObject({ exclude_params: null, exclude_ips: null });
    }));

  it('refuses privacy 2 while no password is set, accepts it with one', () =>
    withSimulator({ websites: [seed] }, async (sim) => {
      const refused = await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { privacy: '2' } });
      expect(refused.status).toBe(422);
      expect(refused.json.errors).toEqual({ password: ['The password field is required.'] });
      const accepted = await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { privacy: '2', password: 'pw' } });
      expect(accepted.json.data).toMatchObject({ privacy: '2', password: true });
      // Once a password is set, privacy can move away and back without resending it.
      await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { privacy: '1' } });
      const back = await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { privacy: '2' } });
      expect(back.status).toBe(200);
    }));

  it('ignores domain on update', () =>
    withSimulator({ websites: [seed] }, async (sim) => {
      const { json } = await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { domain: 'other.example' } });
      expect(json.data.domain).toBe('example.com');
    }));

  it('moves updated_at only when something changed', () => {
    let clock = Date.UTC(2024, 0, 1);
    return withSimulator({ websites: [seed], now: () => clock }, async (sim) => {
      const created = sim.listWebsites()[0]?.updated_at;
      expect(created).toBe('2024-01-01T00:00:00.000000Z');
      clock += 60_000;
      const same = await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { privacy: '0' } });
      expect(same.json.data.updated_at).toBe(created);
      const changed = await call(sim, 'PATCH', `${WEBSITES}/1`, { form: { privacy: '1' } });
      expect(changed.json.data.updated_at).toBe('2024-01-01T00:01:00.000000Z');
    });
  });

  it('answers 404 for unknown ids on every member route', () =>
    withSimulator({ websites: [seed] }, async (sim) => {
      for (const [method, path] of [
        ['GET', '/999'],
        ['PATCH', '/999'],
        ['DELETE', '/999'],
        ['GET', '/abc'],
      ] as const) {
        const form = method === 'PATCH' ? { email: '1' } : undefined;
        const { status, json } = await call(sim, method, `${WEBSITES}${path}`, form ? { form } : {});
        expect(status).toBe(404);
        expect(json).toEqual({ message: 'Resource not found.', status: 404 });
      }
    }));

  it('deletes with a confirmation body', () =>
    withSimulator({ websites: [seed] }, async (sim) => {
      const { status, json } = await call(sim, 'DELETE', `${WEBSITES}/1`);
      expect(status).toBe(200);
      expect(json).toEqual({ id: 1, object: 'website', deleted: true, status: 200 });
      expect((await call(sim, 'GET', `${WEBSITES}/1`)).status).toBe(404);
      expect(sim.listWebsites()).toEqual([]);
    }));

  it('answers 405 for a method the route does not support', () =>
    withSimulator({}, async (sim) => {
      const { status, json } = await call(sim, 'DELETE', WEBSITES);
      expect(status).toBe(405);
      expect(json.message).toContain('The DELETE method is not supported');
    }));
});
