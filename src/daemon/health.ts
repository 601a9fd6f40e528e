import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { shownText } from '../model/index.js';
import { type ConnectionCounts, limitConnections } from './health-connections.js';
import type { Readiness } from './types.js';

// `--listen`: what an orchestrator and Prometheus ask. Liveness says only that the process answers
// (restarting a daemon because the manifest is broken would not fix the manifest); readiness says the
// account matches a valid manifest.

export interface ListenAddress {
  host: string;
  port: number;
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces); undefined when it is none of these. */
export function parseListen(text: string): ListenAddress | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/**
 * What one client may hold of the daemon. A probe or a scrape is one small GET answered at once; Node's
 * own defaults keep a connection that never sends a byte open for ever, and one that sends half a
 * request for minutes, each holding memory (about 11 kB) and a file descriptor: enough of them, from a
 * scanner or anyone who can reach the port, and the daemon is killed for its memory mid-apply.
 */
export const HEALTH_LIMITS = {
  /** A connection quiet this long (nothing sent, a half-sent request, an idle keep-alive) is closed. */
  idleMs: 10_000,
  /** The whole request, headers included, must arrive within this. */
  requestMs: 10_000,
  /**
   * Connections at once. One more takes the place of the connection idle the longest (a probe is still
   * answered when a client holds them all open); only when every one is mid-request is it refused.
   */
  maxConnections: 100,
};

export interface HealthServerOptions {
  address: ListenAddress;
  readiness: () => Readiness;
  registry: Registry;
  logger: Logger;
  /** HEALTH_LIMITS by default. */
  limits?: Partial<typeof HEALTH_LIMITS>;
  /** Every change of the open and busy connection counts (tests wait on it). */
  onConnections?: (counts: ConnectionCounts) => void;
}

export interface HealthServer {
  /** e.g. `http://127.0.0.1:9090` (the real port when 0 was asked). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const limits = { ...HEALTH_LIMITS, ...options.limits };
  const server = limitedServer(limits, (req, res) => {
    answer(req, res, options).catch((error: unknown) => {
      options.logger.warn({ stage: 'health', err: String(error) }, 'health endpoint failed');
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  });
  limitConnections(server, {
    max: limits.maxConnections,
    onLimit: (what, counts) =>
      options.logger.debug(
        { stage: 'health', ...counts },
        what === 'evicted'
          ? 'connection limit reached: closed the connection idle the longest'
          : 'connection limit reached, every connection mid-request: refused a new one',
      ),
    ...(options.onConnections ? { onChange: options.onConnections } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.address.port, options.address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  options.logger.info({ stage: 'health', url }, 'serving /healthz, /readyz and /metrics');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The server's side of HEALTH_LIMITS: a hostile or broken client holds little, and not for long. */
function limitedServer(
  limits: typeof HEALTH_LIMITS,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const server = createServer(
    {
      headersTimeout: limits.requestMs,
      requestTimeout: limits.requestMs,
      // Node looks at the two above only this often (30 s by default).
      connectionsCheckingInterval: Math.min(limits.requestMs, 30_000),
    },
    handle,
  );
  // Without a 'timeout' listener, Node destroys a socket quiet for this long.
  server.timeout = limits.idleMs;
  return server;
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  options: HealthServerOptions,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
  }
  const path = (req.url ?? '/').split('?')[0];
  switch (path) {
    case '/healthz':
      return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
    case '/readyz': {
      const { ready, reason, standby } = options.readiness();
      // The reason may quote the manifest or the service: read by people (curl), so shown escaped.
      // A standby is ready to take over: 200, so a rolling update proceeds; `?standby=unready` makes it
      // 503 for a probe that wants only the leader ready.
      const unready =
        standby === true && /(?:^|&)standby=unready(?:&|$)/.test((req.url ?? '').split('?')[1] ?? '');
      return send(res, ready && !unready ? 200 : 503, 'text/plain; charset=utf-8', `${shownText(reason)}\n`);
    }
    case '/metrics':
      return send(res, 200, options.registry.contentType, await options.registry.metrics());
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found; try /healthz, /readyz or /metrics\n');
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
