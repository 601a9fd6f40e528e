import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { call, WEBSITES } from './helpers.js';

describe('authentication', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ apiKey: 'right-key', websites: [{ domain: 'example.com' }] });
  });
  afterAll(() => sim.close());

  it.each([
    ['a wrong key', 'wrong-key'],
    ['no key', null],
  ])('answers 401 JSON to %s when the client accepts JSON', async (_, key) => {
    const { status, json } = await call(sim, 'GET', WEBSITES, { key });
    expect(status).toBe(401);
    expect(json).toEqual({ message: 'Unauthenticated.' });
  });

  it('redirects to the HTML login page when the client does not ask for JSON', async () => {
    const { status, headers, text } = await call(sim, 'GET', WEBSITES, {
      key: 'wrong-key',
      acceptJson: false,
    });
    expect(status).toBe(302);
    expect(headers.get('location')).toBe(`${sim.url}/login`);
    expect(headers.get('content-type')).toContain('text/html');
    expect(text).toContain('Redirecting to');
  });

  it('serves an HTML login page, so a client following redirects sees 200 HTML', async () => {
    const response = await fetch(`${sim.url}${WEBSITES}`, { headers: { Authorization: 'Bearer wrong-key' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
  });

  it('answers a valid key with JSON even without Accept, and a failed validation with a redirect back', async () => {
    const list = await call(sim, 'GET', WEBSITES, { key: 'right-key', acceptJson: false });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    const invalid = await call(sim, 'POST', WEBSITES, {
      key: 'right-key',
      acceptJson: false,
      form: { domain: '' },
    });
    expect(invalid.status).toBe(302);
  });

  it('sends no rate-limit headers when no limit is configured', async () => {
    const { headers } = await call(sim, 'GET', WEBSITES, { key: 'right-key' });
    expect(headers.get('x-ratelimit-limit')).toBeNull();
    expect(headers.get('x-ratelimit-remaining')).toBeNull();
  });
});

describe('rate limit', () => {
  const START = Date.UTC(2024, 0, 1, 12, 0, 0);

  it('counts down, refuses with 429 and Retry-After, and opens a new window when it ends', async () => {
    let clock = START;
    const sim = await startSimulator({ rateLimit: { limit: 3, windowMs: 60_000 }, now: () => clock });
    try {
      const remaining: Array<string | null> = [];
      for (let i = 0; i < 3; i++) {
        const { status, headers } = await call(sim, 'GET', WEBSITES);
        expect(status).toBe(200);
        expect(headers.get('x-ratelimit-limit')).toBe('3');
        remaining.push(headers.get('x-ratelimit-remaining'));
      }
      expect(remaining).toEqual(['2', '1', '0']);

      const refused = await call(sim, 'GET', WEBSITES);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ message: 'Too Many Attempts.' });
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.headers.get('x-ratelimit-reset')).toBe(String(START / 1000 + 60));
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');

      clock += 45_500;
      expect((await call(sim, 'GET', WEBSITES)).headers.get('retry-after')).toBe('15');

      clock = START + 60_000;
      const reopened = await call(sim, 'GET', WEBSITES);
      expect(reopened.status).toBe(200);
      expect(reopened.headers.get('x-ratelimit-remaining')).toBe('2');
    } finally {
      await sim.close();
    }
  });

  it('does not apply a refused write', async () => {
    const sim = await startSimulator({ rateLimit: { limit: 0, windowMs: 60_000 } });
    try {
      const { status } = await call(sim, 'POST', WEBSITES, { form: { domain: 'example.com' } });
      expect(status).toBe(429);
      expect(sim.listWebsites()).toEqual([]);
    } finally {
      await sim.close();
    }
  });

  it('can be set and removed at run time', async () => {
    const sim = await startSimulator();
    try {
      sim.setRateLimit({ limit: 1, windowMs: 60_000 });
      expect((await call(sim, 'GET', WEBSITES)).status).toBe(200);
      expect((await call(sim, 'GET', WEBSITES)).status).toBe(429);
      sim.setRateLimit(undefined);
      const free = await call(sim, 'GET', WEBSITES);
      expect(free.status).toBe(200);
      expect(free.headers.get('x-ratelimit-limit')).toBeNull();
    } finally {
      await sim.close();
    }
  });
});
