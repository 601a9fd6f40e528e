import { describe, expect, it } from 'vitest';
import { type FaultOptions, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { call, outcome, WEBSITES } from './helpers.js';

async function withFaults<T>(faults: FaultOptions, body: (sim: Simulator) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ faults, websites: [{ domain: 'example.com' }] });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

const MIXED: FaultOptions = { errorRate: 0.3, resetRate: 0.1, htmlRate: 0.1, loginRedirectRate: 0.1 };

async function outcomes(sim: Simulator, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) seen.push(await outcome(sim, 'GET', WEBSITES));
  return seen;
}

describe('seeded faults', () => {
  it('give the same sequence of outcomes for the same seed', async () => {
    const first = await withFaults({ ...MIXED, seed: 42 }, (sim) => outcomes(sim, 40));
    const second = await withFaults({ ...MIXED, seed: 42 }, (sim) => outcomes(sim, 40));
    expect(second).toEqual(first);
    expect(new Set(first).size).toBeGreaterThanOrEqual(4);
    expect(first).toContain('200');
    expect(first).toContain('network-error');
  });

  it('give another sequence for another seed, and restart when the seed is set again', async () => {
    const first = await withFaults({ ...MIXED, seed: 42 }, (sim) => outcomes(sim, 40));
    const other = await withFaults({ ...MIXED, seed: 7 }, (sim) => outcomes(sim, 40));
    expect(other).not.toEqual(first);
    await withFaults({ ...MIXED, seed: 42 }, async (sim) => {
      await outcomes(sim, 5);
      sim.setFaults({ seed: 42 });
      expect(await outcomes(sim, 40)).toEqual(first);
    });
  });

  it('record the same statuses in the request log as the client saw', () =>
    withFaults({ ...MIXED, seed: 3 }, async (sim) => {
      const seen = await outcomes(sim, 20);
      const logged = sim.requests.map((r) => (r.status === 'reset' ? 'network-error' : String(r.status)));
      expect(logged).toEqual(seen);
    }));
});

describe('each fault', () => {
  it('down answers every API request 503 (websites, account, stats), changing nothing, until set back', () =>
    withFaults({ down: true }, async (sim) => {
      const [site] = sim.listWebsites();
      const paths = [WEBSITES, '/api/v1/account', `/api/v1/stats/${site!.id}`];
      for (const path of paths) expect((await call(sim, 'GET', path)).status).toBe(503);
      const store = await call(sim, 'POST', WEBSITES, { form: { domain: 'new.example' } });
      expect(store.status).toBe(503);
      expect(store.text).toContain('Service Unavailable');
      expect(sim.listWebsites().map((w) => w.domain)).toEqual(['example.com']);
      sim.setFaults({ down: false });
      for (const path of paths.slice(0, 2)) expect((await call(sim, 'GET', path)).status).toBe(200);
    }));

  it('errorRate answers 5xx before the request takes effect', () =>
    withFaults({ errorRate: 1 }, async (sim) => {
      const { status } = await call(sim, 'POST', WEBSITES, { form: { domain: 'new.example' } });
      expect([500, 502, 503]).toContain(status);
      expect(sim.listWebsites().map((w) => w.domain)).toEqual(['example.com']);
    }));

  it('errorStatuses narrows the statuses', () =>
    withFaults({ errorRate: 1, errorStatuses: [503] }, async (sim) => {
      expect(await outcomes(sim, 5)).toEqual(['503', '503', '503', '503', '503']);
    }));

  it('resetRate resets the connection before the request takes effect', () =>
    withFaults({ resetRate: 1 }, async (sim) => {
      await expect(call(sim, 'POST', WEBSITES, { form: { domain: 'new.example' } })).rejects.toThrow();
      expect(sim.listWebsites()).toHaveLength(1);
      expect(sim.requests[0]?.status).toBe('reset');
    }));

  it('resetAfterCommitRate commits a store, then loses the answer', () =>
    withFaults({ resetAfterCommitRate: 1 }, async (sim) => {
      await expect(call(sim, 'POST', WEBSITES, { form: { domain: 'new.example' } })).rejects.toThrow();
      expect(sim.listWebsites().map((w) => w.domain)).toEqual(['example.com', 'new.example']);
      expect(sim.requests[0]?.status).toBe('reset-after-commit');
      // Reads are answered normally, so a client can look the domain up.
      const { status, json } = await call(sim, 'GET', WEBSITES, { query: { search: 'new.example' } });
      expect(status).toBe(200);
      expect(json.data).toHaveLength(1);
    }));

  it('resetAfterCommitRate commits an update, then loses the answer', () =>
    withFaults({ resetAfterCommitRate: 1 }, async (sim) => {
      await expect(call(sim, 'PATCH', `${WEBSITES}/1`, { form: { email: '1' } })).rejects.toThrow();
      expect(sim.listWebsites()[0]?.email).toBe(1);
    }));

  it('resetAfterCommitRate commits a delete, then loses the answer', () =>
    withFaults({ resetAfterCommitRate: 1 }, async (sim) => {
      await expect(call(sim, 'DELETE', `${WEBSITES}/1`)).rejects.toThrow();
      expect(sim.listWebsites()).toEqual([]);
      expect(sim.requests[0]?.status).toBe('reset-after-commit');
    }));

  it('resetAfterCommitRate answers a refused store normally', () =>
    withFaults({ resetAfterCommitRate: 1 }, async (sim) => {
      const { status } = await call(sim, 'POST', WEBSITES, { form: { domain: 'example.com' } });
      expect(status).toBe(422);
    }));

  it('htmlRate answers an HTML page instead of JSON, without effect', () =>
    withFaults({ htmlRate: 1 }, async (sim) => {
      const { status, headers, json } = await call(sim, 'POST', WEBSITES, {
        form: { domain: 'new.example' },
      });
      expect([200, 500]).toContain(status);
      expect(headers.get('content-type')).toContain('text/html');
      expect(json).toBeUndefined();
      expect(sim.listWebsites()).toHaveLength(1);
    }));

  it('loginRedirectRate redirects to the login page even with a valid key', () =>
    withFaults({ loginRedirectRate: 1 }, async (sim) => {
      const { status, headers } = await call(sim, 'GET', WEBSITES);
      expect(status).toBe(302);
      expect(headers.get('location')).toBe(`${sim.url}/login`);
    }));

  it('throttleRate forces 429 with Retry-After', () =>
    withFaults({ throttleRate: 1, throttleRetryAfterSeconds: 2 }, async (sim) => {
      const { status, headers, json } = await call(sim, 'GET', WEBSITES);
      expect(status).toBe(429);
      expect(headers.get('retry-after')).toBe('2');
      expect(json).toEqual({ message: 'Too Many Attempts.' });
    }));

  it('a script decides the next outcomes in order', () =>
    withFaults({ script: ['error', 'throttle', 'none'], errorStatuses: [502] }, async (sim) => {
      expect(await outcomes(sim, 4)).toEqual(['502', '429', '200', '200']);
    }));

  it('can be changed at run time', () =>
    withFaults({}, async (sim) => {
      expect(await outcome(sim, 'GET', WEBSITES)).toBe('200');
      sim.setFaults({ errorRate: 1, errorStatuses: [500] });
      expect(await outcome(sim, 'GET', WEBSITES)).toBe('500');
      sim.setFaults({ errorRate: 0 });
      expect(await outcome(sim, 'GET', WEBSITES)).toBe('200');
    }));

  it('rejects rates outside 0..1', () =>
    withFaults({}, async (sim) => {
      expect(() => sim.setFaults({ errorRate: 1.5 })).toThrow(/errorRate/);
    }));

  it('do not touch pages outside the API', () =>
    withFaults({ errorRate: 1 }, async (sim) => {
      const response = await fetch(`${sim.url}/login`);
      expect(response.status).toBe(200);
    }));
});

describe('hangs and latency', () => {
  it('hangRate never answers; the client times out and close() still returns', async () => {
    const sim = await startSimulator({ faults: { hangRate: 1 } });
    const pending = call(sim, 'GET', WEBSITES, { signal: AbortSignal.timeout(100) });
    await expect(pending).rejects.toThrow();
    expect(sim.requests[0]?.status).toBe('hang');
    await sim.close();
  });

  it('hangMs drops the hung connection after a while', async () => {
    const sim = await startSimulator({ faults: { hangRate: 1, hangMs: 20 } });
    try {
      await expect(call(sim, 'GET', WEBSITES)).rejects.toThrow();
    } finally {
      await sim.close();
    }
  });

  it('latency delays answers without changing them', async () => {
    const sim = await startSimulator({
      faults: { latencyMs: 20, latencyJitterMs: 10 },
      websites: [{ domain: 'a.example' }],
    });
    try {
      const answers = await Promise.all([1, 2, 3].map(() => call(sim, 'GET', WEBSITES)));
      for (const { status, json } of answers) {
        expect(status).toBe(200);
        expect(json.data[0].domain).toBe('a.example');
      }
    } finally {
      await sim.close();
    }
  });

  it('close() ends requests that are still waiting out their latency', async () => {
    const sim = await startSimulator({ faults: { latencyMs: 60_000 } });
    const arrived = new Promise<void>((resolve) => {
      sim.onRequest = () => resolve();
    });
    const pending = call(sim, 'GET', WEBSITES);
    await arrived;
    await sim.close();
    await expect(pending).rejects.toThrow();
  });
});
