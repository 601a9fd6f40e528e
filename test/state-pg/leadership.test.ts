import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// A leader whose network goes quiet (no FIN, no RST: a partition) must stop on its own, before the
// server lets a standby take over: its heartbeat gets no answer within --leader-poll.

let db: TestDatabase;

/** A TCP relay to the server that can be frozen: bytes stop flowing both ways, nothing is closed. */
async function relay(target: URL): Promise<{ port: number; freeze(): void; close(): void; server: Server }> {
  let frozen = false;
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (chunk) => frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => frozen || client.write(chunk));
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as { port: number }).port,
    freeze: () => {
      frozen = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe.skipIf(skipWithoutDatabase)('leadership on a silent network', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it('a release while the heartbeat is asking is not a lost leadership', async () => {
    const store = await openStateStore({
      location: db.stateUrl(db.schema()),
      baseUrl: 'https://stats.example.com',
      heartbeatMs: 20,
    });
    for (let i = 0; i < 10; i++) {
      const leadership = await store.lead();
      // Several heartbeats, so that the release lands on a question in flight some of the times.
      await new Promise((next) => setTimeout(next, 45 + i * 7));
      await leadership?.release();
      expect(leadership?.lost.aborted, `release ${i}`).toBe(false);
    }
    await store.close();
  });

  it('the leader counts its leadership lost within two heartbeats once the server stops answering', async () => {
    const proxy = await relay(new URL(db.url));
    try {
      const url = db.stateUrl(db.schema()).replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${proxy.port}`);
      const store = await openStateStore({
        location: url,
        baseUrl: 'https://stats.example.com',
        heartbeatMs: 300,
      });
      const leadership = await store.lead();
      expect(leadership).toBeDefined();
      const second = await openStateStore({
        location: db.stateUrl(new URL(url).searchParams.get('schema') ?? ''),
        baseUrl: 'https://stats.example.com',
      });
      expect(await second.lead()).toBeUndefined();
      const frozenAt = Date.now();
      proxy.freeze();
      await new Promise<void>((resolve) =>
        leadership?.lost.addEventListener('abort', () => resolve(), { once: true }),
      );
      // Two heartbeats, and the slack a loaded machine adds to timers; without the heartbeat, never.
      expect(Date.now() - frozenAt).toBeLessThan(2 * 300 + 2_000);
      await expect(leadership?.lock()).rejects.toThrow(
        /PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=\w+ (did not say within 0\.3 s whether this process still holds the lock|could not say whether this process still holds the lock)/,
      );
    } finally {
      proxy.close();
    }
  });
});
