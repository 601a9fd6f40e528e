import { connect } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { HEALTH_LIMITS, type HealthServer, parseListen, startHealthServer } from '../../src/daemon/health.js';
import type { ConnectionCounts } from '../../src/daemon/health-connections.js';

describe('parseListen', () => {
  it.each([
    ['0.0.0.0:9090', { host: '0.0.0.0', port: 9090 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:8080', { host: 'localhost', port: 8080 }],
    [':9090', { host: '0.0.0.0', port: 9090 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
    ['[::]:9090', { host: '::', port: 9090 }],
  ])('reads %s', (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each(['9090', 'host', 'host:', 'host:99999', '::1:9090', 'a:b:9090', 'host:port'])(
    'refuses %s',
    (text) => {
      expect(parseListen(text)).toBeUndefined();
    },
  );
});

/** A raw TCP client of the health server; `closed` resolves when the server ends the connection. */
function rawClient(url: string, send?: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname, () => {
    if (send !== undefined) socket.write(send);
  });
  let answer = '';
  socket.on('data', (chunk) => {
    answer += String(chunk);
  });
  // A refused connection may be reset: it is closed all the same.
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  return { socket, closed };
}

describe('the health server, given clients that hold on', () => {
  const servers: HealthServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const start = async (limits?: Parameters<typeof startHealthServer>[0]['limits']) => {
    const server = await startHealthServer({
      address: { host: '127.0.0.1', port: 0 },
      readiness: () => ({ ready: true, reason: 'ready' }),
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
      ...(limits ? { limits } : {}),
    });
    servers.push(server);
    return server;
  };

  it('closes a connection that sends nothing, or only half a request', async () => {
    // The idle timeout first: with both at 200 ms, the request timeout's check could come first and
    // answer the silent connection 408 before closing it.
    const server = await start({ idleMs: 200, requestMs: 400 });
    const silent = rawClient(server.url);
    const half = rawClient(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    expect(await silent.closed).toBe('');
    expect(await half.closed).not.toContain('200 OK');
    // Clients that behave are answered as before.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it(`holds at most ${HEALTH_LIMITS.maxConnections} connections at once, and answers again once they are gone`, async () => {
    const server = await start({ idleMs: 60_000, requestMs: 60_000 });
    const clients = Array.from({ length: HEALTH_LIMITS.maxConnections + 1 }, () =>
      rawClient(server.url, 'GET /healthz HTTP/1.1\r\n'),
    );
    // One too many: the server closes one as it comes, unanswered.
    const refused = await Promise.race(clients.map((client) => client.closed));
    expect(refused).toBe('');
    // Each ends its side; the server then closes its own, and counts the connection gone, before the
    // client sees it closed.
    for (const client of clients) client.socket.end();
    await Promise.all(clients.map((client) => client.closed));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe('the health server, given a client that holds every connection it may', () => {
  const servers: HealthServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  /** A server whose connection counts a test can wait on (the server's side, not the client's). */
  const start = async () => {
    const waiting: Array<() => void> = [];
    let counts: ConnectionCounts = { open: 0, busy: 0 };
    const server = await startHealthServer({
      address: { host: '127.0.0.1', port: 0 },
      readiness: () => ({ ready: true, reason: 'ready' }),
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
      limits: { idleMs: 60_000, requestMs: 60_000 },
      onConnections: (now) => {
        counts = now;
        for (const wake of waiting.splice(0)) wake();
      },
    });
    servers.push(server);
    const until = async (holds: (counts: ConnectionCounts) => boolean) => {
      while (!holds(counts)) await new Promise<void>((resolve) => waiting.push(resolve));
    };
    return { server, until };
  };
  const MAX = HEALTH_LIMITS.maxConnections;
  const REQUEST = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

  it(`answers a probe while ${MAX} idle keep-alive connections are open, closing the one idle the longest`, async () => {
    const { server } = await start();
    const clients: Array<ReturnType<typeof rawClient>> = [];
    for (let i = 0; i < MAX; i++) {
      const client = rawClient(server.url, REQUEST);
      clients.push(client);
      // Answered, and kept open (keep-alive): idle from now, the first one the longest.
      await new Promise<void>((resolve) => client.socket.once('data', () => resolve()));
    }
    const probe = await fetch(`${server.url}/readyz`);
    expect(probe.status).toBe(200);
    expect(await clients[0]!.closed).toContain('200 OK');
    // The next probe too: each new connection takes the place of the next one idle the longest.
    expect((await fetch(`${server.url}/healthz`, { keepalive: false })).status).toBe(200);
    for (const client of clients) client.socket.end();
  });

  it(`refuses one more connection while all ${MAX} are in the middle of a request`, async () => {
    const { server, until } = await start();
    const clients = Array.from({ length: MAX }, () => rawClient(server.url, 'GET /healthz HTTP/1.1\r\n'));
    let closed = 0;
    for (const client of clients) void client.closed.then(() => closed++);
    await until((c) => c.busy === MAX);
    const late = rawClient(server.url, REQUEST);
    expect(await late.closed).toBe('');
    expect(closed).toBe(0);
    // The requests in progress go on: each one finished is answered.
    clients[0]!.socket.write('Host: x\r\n\r\n');
    await new Promise<void>((resolve) => clients[0]!.socket.once('data', () => resolve()));
    for (const client of clients) client.socket.end();
    await Promise.all(clients.map((client) => client.closed));
  });
});
