import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { type Socks5Proxy, startSocks5 } from '../helpers/socks5.js';
import { TLS_CERT, TLS_HOST, TLS_KEY } from '../helpers/tls-fixture.js';

// HTTPS_PROXY / HTTP_PROXY are honoured like every other CLI tool (issue 12 §5): a loopback proxy that
// relays to the simulator sees the requests for the service's host.
let simulator: Simulator;
let proxy: Server | undefined;
let terminator: TlsServer | undefined;
let socks: Socks5Proxy | undefined;
/** Connections the servers no longer own once piped (tunnels, TLS sessions): the teardown ends them. */
const sockets = new Set<{ destroy(): unknown }>();
const seen: string[] = [];

afterEach(async () => {
  proxy?.closeAllConnections();
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of [proxy, terminator]) {
    if (server) await new Promise((done) => server.close(done));
  }
  await socks?.close();
  [proxy, terminator, socks] = [undefined, undefined, undefined];
  seen.length = 0;
  await simulator.close();
});

/** The service as it is on the Internet: TLS with a certificate for TLS_HOST, in front of the simulator. */
async function startTlsService(): Promise<number> {
  terminator = createTlsServer({ cert: TLS_CERT, key: TLS_KEY }, (secure) => {
    const upstream = connect(simulator.port, '127.0.0.1');
    sockets.add(secure).add(upstream);
    secure.pipe(upstream).pipe(secure);
    upstream.on('error', () => secure.destroy());
    secure.on('error', () => upstream.destroy());
  });
  await new Promise<void>((done) => terminator?.listen(0, '127.0.0.1', done));
  return (terminator.address() as AddressInfo).port;
}

/** A dry run of the service at https://TLS_HOST through `proxy`, trusting the service's certificate. */
async function dryRunOfTlsService(proxyUrl: string) {
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-proxy-'));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
  await writeFile(join(dir, 'ca.pem'), TLS_CERT);
  return runCli(['--once', '--dry-run'], {
    ...toolEnv(simulator, dir),
    WEBSITES_SYNC_BASE_URL: `https://${TLS_HOST}`,
    HTTPS_PROXY: proxyUrl,
    NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
  });
}

describe('an HTTP proxy from the environment', () => {
  it('carries the requests to a service that is not on this machine', async () => {
    simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
    // A forward proxy (plain-http requests arrive with their absolute URL) that relays to the simulator.
    proxy = createServer((req, res) => {
      seen.push(req.url ?? '');
      const upstream = request(
        {
          host: '127.0.0.1',
          port: simulator.port,
          method: req.method,
          path: new URL(req.url ?? '/').pathname + new URL(req.url ?? '/').search,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((done) => proxy?.listen(0, '127.0.0.1', done));
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-proxy-'));
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const run = await runCli(['--once', '--dry-run', '--allow-insecure-http'], {
      ...toolEnv(simulator, dir),
      WEBSITES_SYNC_BASE_URL: 'http://stats.example.test',
      HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    });
    expect(run.code, run.stderr).toBe(0);
    // The listing and the account's plan, both through the proxy.
    expect(seen.map((url) => url.replace(/\?.*$/, '')).sort()).toEqual([
      'http://stats.example.test/api/v1/account',
      'http://stats.example.test/api/v1/websites',
    ]);
    expect(simulator.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('tunnels to an https:// service with CONNECT, and the TLS session inside the tunnel is with the service', async () => {
    simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
    const tlsPort = await startTlsService();
    // A forward proxy that answers CONNECT for any host with a tunnel to that service.
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client, head) => {
      seen.push(`CONNECT ${req.url}`);
      // closeAllConnections() leaves a socket taken over by CONNECT.
      sockets.add(client);
      const upstream = connect(tlsPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((done) => proxy?.listen(0, '127.0.0.1', done));
    const run = await dryRunOfTlsService(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('No changes');
    expect(seen).toContain(`CONNECT ${TLS_HOST}:443`);
    // The listing and the account's plan reached the service, inside the tunnel.
    expect(simulator.requests.map((r) => `${r.method} ${r.path.replace(/\?.*$/, '')}`).sort()).toEqual([
      'GET /api/v1/account',
      'GET /api/v1/websites',
    ]);
  });

  it('reaches an https:// service through a SOCKS5 proxy (socks5:// in HTTPS_PROXY)', async () => {
    simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
    socks = await startSocks5(await startTlsService());
    const run = await dryRunOfTlsService(`socks5://127.0.0.1:${socks.port}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('No changes');
    expect(socks.destinations).toContain(`${TLS_HOST}:443`);
    expect(simulator.requests.map((r) => `${r.method} ${r.path.replace(/\?.*$/, '')}`).sort()).toEqual([
      'GET /api/v1/account',
      'GET /api/v1/websites',
    ]);
  });
});

describe('a proxy that gives no answer', () => {
  // The proxy is named in the error, with the variable that set it and without its credentials: the
  // error said only "connect ECONNREFUSED 127.0.0.1:…", which reads as the service's own refusal.
  it('refusing the connection is named, without its password', async () => {
    simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const run = await dryRunOfTlsService(`http://operator:pr0xy-s3cret@127.0.0.1:${port}`);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `no answer from https://${TLS_HOST} through the proxy http://127.0.0.1:${port} from HTTPS_PROXY (connect ECONNREFUSED`,
    );
    expect(run.stderr).not.toContain('pr0xy-s3cret');
    expect(simulator.requests).toEqual([]);
  }, 30_000);

  it('refusing the tunnel (407) is named', async () => {
    simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (_req, client) => {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="x"\r\n\r\n');
    });
    await new Promise<void>((done) => proxy?.listen(0, '127.0.0.1', done));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const run = await dryRunOfTlsService(proxyUrl);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`through the proxy ${proxyUrl} from HTTPS_PROXY (Proxy response (407)`);
    expect(run.stderr).toContain(
      'the proxy asks for credentials; give them in its URL, http://user:password@host:port',
    );
  });
});
