import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptInfo } from '../../src/service/attempt-types.js';
import { AuthError, ServiceError } from '../../src/service/errors.js';
import { type HttpOptions, HttpTransport } from '../../src/service/http.js';
import { type FaultKind, type Simulator, startSimulator } from '../../src/simulator/index.js';

// The transport against the simulator with scripted faults: what is retried, what is not, and what a
// failure looks like. Retry delays are tiny; Retry-After is honoured in full (1 s at least).

const LIST = '/api/v1/websites';
const FAST = { minDelayMs: 5, maxDelayMs: 20 };

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

interface Setup {
  simulator: Simulator;
  http: HttpTransport;
  attempts: AttemptInfo[];
  statuses: () => unknown[];
}

async function setUp(script: Array<FaultKind | 'none'>, options: Partial<HttpOptions> = {}): Promise<Setup> {
  const simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }], faults: { script } });
  cleanups.push(() => simulator.close());
  const attempts: AttemptInfo[] = [];
  const http = new HttpTransport({
    baseUrl: simulator.url,
    apiKey: simulator.apiKey,
    userAgent: 'websites-sync/test',
    timeoutMs: 2_000,
    connections: 4,
    retry: FAST,
    hooks: { afterAttempt: (info) => attempts.push(info) },
    ...options,
  });
  cleanups.push(() => http.close());
  return { simulator, http, attempts, statuses: () => simulator.requests.map((r) => r.status) };
}

const store = (domain: string) => ({ form: new URLSearchParams({ domain }) });

describe('retries', () => {
  it.each([
    ['GET', LIST],
    ['PATCH', `${LIST}/1`],
    ['PUT', `${LIST}/1`],
    ['DELETE', `${LIST}/1`],
  ] as const)('repeats %s after a 5xx and a reset; each attempt is seen once', async (method, path) => {
    const { http, attempts, statuses } = await setUp(['error', 'reset', 'none']);
    const body = method === 'PATCH' || method === 'PUT' ? { form: new URLSearchParams({ email: '1' }) } : {};
    await expect(http.request(method, path, body)).resolves.toMatchObject({ status: 200 });
    expect(statuses()).toEqual([expect.any(Number), 'reset', 200]);
    expect(attempts.map((a) => a.status)).toEqual([statuses()[0], undefined, 200]);
  });

  it('gives up after maxRetries with the last answer', async () => {
    const { http, simulator } = await setUp(['error', 'error', 'error', 'none'], {
      retry: { ...FAST, maxRetries: 2 },
    });
    const error = await http.request('GET', LIST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBeGreaterThanOrEqual(500);
    expect(simulator.requests).toHaveLength(3);
  });

  it('never repeats a store after a 5xx or a reset: its effect is unknown', async () => {
    const { http, statuses } = await setUp(['error', 'reset']);
    const post = () => http.request('POST', LIST, store('b.example.com'));
    await expect(post()).rejects.toMatchObject({ ambiguous: true, status: expect.any(Number) });
    await expect(post()).rejects.toMatchObject({ ambiguous: true, status: undefined });
    expect(statuses()).toEqual([expect.any(Number), 'reset']);
  });

  it('repeats a store refused with 429 (the throttle acts before anything is stored), after Retry-After', async () => {
    const { http, simulator, statuses } = await setUp(['throttle', 'none']);
    const response = await http.request('POST', LIST, store('b.example.com'));
    expect(response.status).toBe(201);
    expect(statuses()).toEqual([429, 201]);
    const [first, second] = simulator.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it('repeats a GET that timed out waiting for headers', async () => {
    // A second: an answer the test's own process is slow to give under load is not taken for a hang.
    const { http, attempts } = await setUp(['hang', 'none'], { timeoutMs: 1_000 });
    await expect(http.request('GET', LIST)).resolves.toMatchObject({ status: 200 });
    const codes = attempts.map((a) => (a.error as { code?: string } | undefined)?.code ?? a.status);
    expect(codes).toEqual(['UND_ERR_HEADERS_TIMEOUT', 200]);
  });

  it('says which timeout expired when attempts run out', async () => {
    const { http } = await setUp(['hang', 'hang'], { timeoutMs: 1_000, retry: { ...FAST, maxRetries: 1 } });
    await expect(http.request('GET', LIST)).rejects.toThrow(
      /^GET \/api\/v1\/websites: no answer from .* \(no response within 1s; see --timeout\)$/,
    );
  });
});

describe('a body that stalls after the headers', () => {
  it('is retried from scratch, not resumed with a Range request', async () => {
    let served = 0;
    const server = createServer((_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' });
      if (served === 1) res.write('{"data"');
      else res.end('{"data":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      server.closeAllConnections();
      server.close();
    });
    const attempts: AttemptInfo[] = [];
    const http = new HttpTransport({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: 'k',
      userAgent: 'websites-sync/test',
      timeoutMs: 200,
      connections: 1,
      retry: FAST,
      hooks: { afterAttempt: (info) => attempts.push(info) },
    });
    cleanups.push(() => http.close());
    await expect(http.request('GET', LIST)).resolves.toEqual({ status: 200, body: { data: [] } });
    expect(served).toBe(2);
    // The gap between chunks and the whole-body deadline expire together here; either one retries.
    expect(attempts.map((a) => a.error?.message ?? a.status)).toEqual([
      expect.stringMatching(/^(Body Timeout Error|the whole response did not arrive)$/),
      200,
    ]);
  });
});

describe('answers that are not what the API promises', () => {
  it('an HTML page is an error naming the request, the status and an excerpt; only a 500 is retried', async () => {
    const { http, simulator, statuses } = await setUp([]);
    simulator.setFaults({ htmlRate: 1, seed: 3 });
    const error = await http.request('GET', LIST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    const { status, message } = error as ServiceError;
    const seen = statuses();
    // Each attempt drew a 200 (a login or maintenance page) or a 500 (an error page).
    expect(seen.slice(0, -1).every((s) => s === 500)).toBe(true);
    expect(seen.at(-1)).toBe(status);
    expect(seen.length === 6 || status === 200).toBe(true);
    expect(message).toMatch(
      new RegExp(`^GET /api/v1/websites: unexpected answer ${status} \\(not JSON\\): "\\w`),
    );
  });

  it('a redirect to the login page is an AuthError at once, no retry', async () => {
    const { http, simulator } = await setUp(['login-redirect']);
    const error = await http.request('GET', LIST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toMatch(
      /redirected GET \/api\/v1\/websites to its login page \(302\)/,
    );
    expect(simulator.requests).toHaveLength(1);
  });

  it('a 401 is an AuthError at once, no retry', async () => {
    const { simulator } = await setUp([]);
    const http = new HttpTransport({
      baseUrl: simulator.url,
      apiKey: 'wrong-key',
      userAgent: 'websites-sync/test',
      timeoutMs: 2_000,
      connections: 1,
      retry: FAST,
    });
    cleanups.push(() => http.close());
    const error = await http.request('GET', LIST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toMatch(/refused the API key \(401 Unauthenticated\.\)/);
    expect(simulator.requests).toHaveLength(1);
  });
});
