import { type AddressInfo, connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
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
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  const error = await new Promise<Error>((done) => connect(port, '127.0.0.1').on('error', done));
  return { error, port };
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
