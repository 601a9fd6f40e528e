import dns from 'node:dns';
import { type AddressInfo, connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/service/http.js';
import { proxyFromEnv } from '../../src/service/index.js';
import { throughProxy } from '../../src/service/proxy.js';

// Which proxy the environment names for the service (as undici's EnvHttpProxyAgent reads it), and
// whether a failure to get an answer happened at that proxy, which the error then names.

describe('the proxy from the environment', () => {
  it.each([
    [{ HTTPS_PROXY: 'http://a:3128' }, 'https:', 'HTTPS_PROXY'],
    [{ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' }, 'https:', 'https_proxy'],
    [{ HTTP_PROXY: 'http://a:3128' }, 'https:', 'HTTP_PROXY'],
    [{ https_proxy: '', HTTP_PROXY: 'http://a:3128' }, 'https:', 'HTTP_PROXY'],
    [{ HTTPS_PROXY: 'http://a:3128' }, 'http:', undefined],
    [{ http_proxy: 'http://a:1', HTTP_PROXY: 'http://b:2' }, 'http:', 'http_proxy'],
    [{ HTTP_PROXY: '' }, 'http:', undefined],
  ])('%j for an %s service: %s', (env, protocol, variable) => {
    expect(proxyFromEnv(env, protocol)?.variable).toBe(variable);
  });
});

/** The error of a real connection refused at a loopback port nothing listens on, and that port. */
async function refused(): Promise<{ error: Error; port: number }> {
  const port = await closedPort();
  const error = await new Promise<Error>((done) => connect(port, '127.0.0.1').on('error', done));
  return { error, port };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/**
 * The error of a real connection refused at a name with two addresses, ::1 and 127.0.0.1 (localhost on
 * most systems, a dual-stack proxy): Node tries both and fails with an AggregateError of the two.
 */
async function refusedAtTwoAddresses(port: number): Promise<Error> {
  const addresses = [
    { address: '::1', family: 6 },
    { address: '127.0.0.1', family: 4 },
  ];
  return await new Promise<Error>((done) =>
    connect({
      port,
      host: 'localhost',
      autoSelectFamily: true,
      lookup: (_host, _options, found) =>
        (found as (e: null, all: typeof addresses) => void)(null, addresses),
    }).on('error', done),
  );
}

describe('a failure at the proxy', () => {
  const service = new URL('https://stats.example.test/');

  it('is named by the proxy, without its credentials, and the variable that set it', async () => {
    const { error, port } = await refused();
    const proxy = { variable: 'HTTPS_PROXY', value: `http://user:s3cret@127.0.0.1:${port}` };
    expect(throughProxy(new Error('fetch failed', { cause: error }), proxy, service)).toBe(
      ` through the proxy http://127.0.0.1:${port} from HTTPS_PROXY`,
    );
  });

  it('is the proxy refusing the tunnel', () => {
    const proxy = { variable: 'HTTPS_PROXY', value: 'http://proxy.example.test:3128' };
    const error = new Error('Proxy response (407) !== 200 when HTTP Tunneling');
    expect(throughProxy(error, proxy, service)).toBe(
      ' through the proxy http://proxy.example.test:3128 from HTTPS_PROXY',
    );
  });

  it('is not a connection to the service itself (one NO_PROXY sends around the proxy)', async () => {
    const { error, port } = await refused();
    const proxy = { variable: 'HTTPS_PROXY', value: 'http://127.0.0.1:3128' };
    expect(throughProxy(error, proxy, new URL(`https://stats.example.test:${port}/`))).toBe('');
    expect(throughProxy(error, undefined, service)).toBe('');
  });
});

describe('a failure at the proxy, told from one at the service', () => {
  const proxy = { variable: 'HTTPS_PROXY', value: 'http://10.0.0.5:3128' };

  it('is a proxy whose name has two addresses (localhost), refusing at both', async () => {
    const port = await closedPort();
    const error = await refusedAtTwoAddresses(port);
    expect(error).toBeInstanceOf(AggregateError);
    const atLocalhost = { variable: 'HTTPS_PROXY', value: `http://localhost:${port}` };
    expect(
      throughProxy(
        new Error('fetch failed', { cause: error }),
        atLocalhost,
        new URL('https://stats.example.test/'),
      ),
    ).toBe(` through the proxy http://localhost:${port} from HTTPS_PROXY`);
  });

  it.each([
    // NO_PROXY sends these around the proxy: the service's own name did not resolve, or did not connect.
    [
      'stats-proxy.example.test',
      Object.assign(new Error('getaddrinfo ENOTFOUND stats-proxy.example.test'), {
        code: 'ENOTFOUND',
        syscall: 'getaddrinfo',
        hostname: 'stats-proxy.example.test',
      }),
    ],
    [
      'socks.example.test',
      Object.assign(
        new Error('Connect Timeout Error (attempted address: socks.example.test:443, timeout: 10000ms)'),
        { code: 'UND_ERR_CONNECT_TIMEOUT' },
      ),
    ],
  ])('is not a service named %s failing as itself', (host, error) => {
    expect(
      throughProxy(new Error('fetch failed', { cause: error }), proxy, new URL(`https://${host}/`)),
    ).toBe('');
  });
});

describe('a request through a proxy at localhost that is not running', () => {
  // localhost is ::1 and 127.0.0.1 on most systems (here, one address: the lookup is made to give both).
  // Node tries each and fails with an AggregateError of two refusals, which has no message of its own:
  // the error said "no answer from https://stats.example.test ()".
  it('names the proxy, and each address that refused', async () => {
    const port = await closedPort();
    const lookup = dns.lookup;
    const env = { ...process.env };
    const bothAddresses = (host: string, options: unknown, found: unknown) => {
      if (host !== 'localhost' || typeof found !== 'function')
        return Reflect.apply(lookup, dns, [host, options, found]);
      found(null, [
        { address: '::1', family: 6 },
        { address: '127.0.0.1', family: 4 },
      ]);
    };
    Object.assign(dns, { lookup: bothAddresses });
    process.env.HTTPS_PROXY = `http://operator:pr0xy-s3cret@localhost:${port}`;
    try {
      const transport = new HttpTransport({
        baseUrl: 'https://stats.example.test',
        apiKey: 'k'.repeat(32),
        userAgent: 'test',
        timeoutMs: 5000,
        retry: { maxRetries: 0 },
        pacing: false,
      });
      await expect(transport.request('GET', '/api/v1/websites')).rejects.toThrow(
        `GET /api/v1/websites: no answer from https://stats.example.test through the proxy http://localhost:${port} from HTTPS_PROXY (connect ECONNREFUSED ::1:${port}; connect ECONNREFUSED 127.0.0.1:${port})`,
      );
    } finally {
      Object.assign(dns, { lookup });
      process.env = env;
    }
  });
});
