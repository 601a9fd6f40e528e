import type { Connection } from './connection.js';

/**
 * Whether a holder (a run, a leader) still holds its locks, asked every `everyMs` on a connection of its
 * own: the holder's may be busy with a long write, and a query there would wait behind it. The server
 * lists the advisory locks of the holder's session in pg_locks. None left (the server ended that
 * session: a partition, a failover), no answer within `everyMs`, or an error: the holder's connection
 * is dropped, so its `lost` fires and nothing more is written. Another process can take the lock only
 * once the server has released it, so a holder stops at most `everyMs` after that (two for a silent
 * network).
 */
export function startHeartbeat(
  held: Connection,
  everyMs: number,
  openProbe: () => Promise<Connection>,
  shown: string,
): () => void {
  let probe: Promise<Connection> | undefined;
  let asking = false;
  const stillHeld = async (): Promise<boolean> => {
    probe ??= openProbe();
    const { rows } = await (await probe).client.query<{ held: number }>(
      "SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1",
      [held.backendPid],
    );
    return (rows[0]?.held ?? 0) > 0;
  };
  const timer = setInterval(() => {
    if (held.lost.aborted) return;
    if (asking)
      return held.drop(
        `PostgreSQL at ${shown} did not say within ${everyMs / 1000} s whether the lock is still held`,
      );
    asking = true;
    stillHeld().then(
      (still) => {
        asking = false;
        if (!still)
          held.drop(`PostgreSQL at ${shown} no longer holds the lock of this process (its session ended)`);
      },
      (error: unknown) => {
        asking = false;
        held.drop(
          `PostgreSQL at ${shown} could not say whether the lock is still held: ${(error as Error).message}`,
        );
      },
    );
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    void probe?.then((connection) => connection.close()).catch(() => {});
  };
}
