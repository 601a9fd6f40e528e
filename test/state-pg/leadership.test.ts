import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// A leader whose network goes quiet (no FIN, no RST: a partition) must stop on its own, before the
// server lets a standby take over: its heartbeat gets no answer within --leader-poll.

let db: TestDatabase;

interface Relay {
  port: number;
  /** Bytes stop flowing both ways, on every connection; nothing is closed. */
  freeze(): void;
  /**
   * The next message a client sends that holds `marker` is held, and its connection frozen from then on:
   * a question in flight that is never answered. Resolves once it is held.
   */
  holdNext(marker: string): Promise<void>;
  close(): void;
}

/** A TCP relay to the server, to make its connections go quiet. */
async function relay(target: URL): Promise<Relay> {
  let frozen = false;
  let hold: { marker: string; held: () => void } | undefined;
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    let quiet = false;
    client.on('data', (chunk) => {
      if (hold && chunk.includes(hold.marker)) {
        quiet = true;
        hold.held();
        hold = undefined;
      }
      if (!(frozen || quiet)) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => frozen || quiet || client.write(chunk));
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => {
      frozen = true;
    },
    holdNext: (marker) =>
      new Promise<void>((held) => {
        hold = { marker, held };
      }),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** The test database's state URL for a new schema, through `proxy`. */
function relayedUrl(proxy: Relay): string {
  return db.stateUrl(db.schema()).replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${proxy.port}`);
}

describe.skipIf(skipWithoutDatabase)('leadership on a silent network', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it('a release while the heartbeat is asking is not a lost leadership', async () => {
    const proxy = await relay(new URL(db.url));
    try {
      // A heartbeat of a second: the release comes while its question is held, well before the next.
      const store = await openStateStore({
        location: relayedUrl(proxy),
        baseUrl: 'https://stats.example.com',
        heartbeatMs: 1_000,
      });
      const asking = proxy.holdNext('pg_locks');
      const leadership = await store.lead();
      await asking;
      await leadership?.release();
      expect(leadership?.lost.aborted).toBe(false);
      await store.close();
    } finally {
      proxy.close();
    }
  });

  it('the leader counts its leadership lost within two heartbeats once the server stops answering', async () => {
    const proxy = await relay(new URL(db.url));
    try {
      const url = relayedUrl(proxy);
      const store = await openStateStore({
        location: url,
        baseUrl: 'https://stats.example.com',
        heartbeatMs: 1_000,
      });
      const leadership = await store.lead();
      expect(leadership).toBeDefined();
      const second = await openStateStore({
        location: db.stateUrl(new URL(url).searchParams.get('schema') ?? ''),
        baseUrl: 'https://stats.example.com',
      });
      expect(await second.lead()).toBeUndefined();
      // Not lost before the network goes quiet (a heartbeat of a second leaves a loaded machine room).
      expect(leadership?.lost.aborted).toBe(false);
      const frozenAt = Date.now();
      proxy.freeze();
      await new Promise<void>((resolve) =>
        leadership?.lost.addEventListener('abort', () => resolve(), { once: true }),
      );
      // Two heartbeats, and the slack a loaded machine adds to timers; without the heartbeat, never.
      expect(Date.now() - frozenAt).toBeLessThan(2 * 1_000 + 2_000);
      await expect(leadership?.lock()).rejects.toThrow(
        /PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=\w+ (did not say within 1 s whether this process still holds the lock|could not say whether this process still holds the lock)/,
      );
    } finally {
      proxy.close();
    }
  });
});
