import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// HTTPS_PROXY / HTTP_PROXY are honoured like every other CLI tool (issue 12 §5): a loopback proxy that
// relays to the simulator sees the requests for the service's host.
let simulator: Simulator;
let proxy: Server;
const seen: string[] = [];

afterEach(async () => {
  proxy.closeAllConnections();
  await new Promise((done) => proxy.close(done));
  await simulator.close();
});

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
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
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
});
