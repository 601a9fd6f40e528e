import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A PostgreSQL that completes the start-up (authentication, ready for query) and then answers nothing
// more: a stalled server, or a network that lost the way back. Every wait on it is bounded by
// --timeout, whichever command waits.

let simulator: Simulator;
let server: Server;
let sockets: Socket[];
let dir: string;
let env: Record<string, string>;

/** One message of PostgreSQL's protocol: a type byte, then its length (itself included) and body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

beforeEach(async () => {
  simulator = await startSimulator();
  sockets = [];
  server = createServer((socket) => {
    sockets.push(socket);
    let started = false;
    socket.on('error', () => {});
    socket.on('data', (data) => {
      if (started) return;
      // An SSLRequest is refused with 'N', as a server without TLS does.
      if (data.length >= 8 && data.readInt32BE(4) === 80877103) return void socket.write('N');
      started = true;
      socket.write(Buffer.concat([message('R', Buffer.alloc(4)), message('Z', Buffer.from('I'))]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-pg-silent-'));
  env = {
    ...toolEnv(simulator, dir),
    WEBSITES_SYNC_STATE: `postgres://u:silent-pw-7c1d@127.0.0.1:${port}/db`,
  };
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
});

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await simulator.close();
});

describe('a PostgreSQL that stops answering after the start-up', () => {
  it.each([
    ['a dry run', ['--once', '--dry-run']],
    ['a run', ['--once']],
    ['state show', ['state', 'show']],
    ['the daemon', ['--listen', '127.0.0.1:0']],
  ])('%s ends within --timeout, naming the server and not its password', async (_name, args) => {
    const run = await runCli([...args, '--timeout', '1s'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('PostgreSQL at postgres://127.0.0.1:');
    expect(run.stderr).toContain('did not answer a query within 1.1 s');
    expect(run.stderr).not.toContain('silent-pw-7c1d');
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
