import type { LockRequest } from '../store-types.js';
import { type Connection, sessionAlive } from './connection.js';

/**
 * Whether a holder (a run, a leader) still holds its locks, asked every `everyMs` on a connection of its
 * own (a second connection per holder): the holder's may be busy with a long write, and a query there
 * would wait behind it. The server lists the advisory locks of the holder's session in pg_locks (the
 * session named by its process and start time, as sessionAlive says). None left (the server ended
 * that session: a partition, a failover), or the question unanswered for an interval, and the holder's
 * connection is dropped, so its `lost` fires and nothing more is written. Another process can take the
 * lock only once the server has released it, so a holder stops at most `everyMs` after that (two for
 * a silent network). A probe that cannot be opened twice in a row counts as unanswered too.
 */
export function startHeartbeat(
  held: Connection,
  everyMs: number,
  openProbe: () => Promise<Connection>,
  shown: string,
): () => void {
  let stopped = false;
  let failures = 0;
  let asking: Promise<void> | undefined;
  let probe: Promise<Connection> | undefined;
  const open = () => {
    probe = openProbe();
    // A failure is counted when the probe is used; it must not become unhandled meanwhile.
    probe.catch(() => {});
  };
  const drop = (why: string) => {
    if (!stopped && !held.lost.aborted) held.drop(`PostgreSQL at ${shown} ${why}`);
  };
  const ask = async () => {
    const connection = await (probe as Promise<Connection>);
    const { rows } = await connection.client.query<{ held: number }>(
      `SELECT count(*)::int AS held FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.pid = $1 AND ${sessionAlive('l.pid', '$2::timestamptz')}`,
      [held.backendPid, held.backendStart],
    );
    return (rows[0]?.held ?? 0) > 0;
  };
  open();
  const timer = setInterval(() => {
    if (stopped || held.lost.aborted) return;
    if (asking)
      return drop(`did not say within ${everyMs / 1000} s whether this process still holds the lock`);
    if (probe === undefined) open();
    asking = ask().then(
      (still) => {
        failures = 0;
        if (!still) drop('no longer holds the lock of this process (its session ended)');
      },
      (error: unknown) => {
        // Opened again at the next tick; the failed one is closed if it was open at all.
        void probe?.then((connection) => connection.close()).catch(() => {});
        probe = undefined;
        if (++failures >= 2)
          drop(`could not say whether this process still holds the lock: ${(error as Error).message}`);
      },
    );
    void asking.finally(() => {
      asking = undefined;
    });
  }, everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    // At once, a question in flight included (its failure is not counted once stopped): a probe left
    // waiting on a silent server would keep the process alive.
    void probe?.then((connection) => connection.close()).catch(() => {});
  };
}

/**
 * The run before this one lost its session without releasing the lock (a partition, a connection the
 * server ended): it stops only at its heartbeat, up to two of them (`everyMs`) after the server let go
 * (a silent network), and may send to the service until then. The run that took the lock starts
 * nothing before that has passed, or before it is stopped itself.
 */
export async function afterLostHolder(
  held: Connection,
  everyMs: number,
  request: LockRequest,
): Promise<void> {
  const waitMs = 2 * everyMs;
  request.warn?.(
    `the run that held the lock before lost its PostgreSQL session without releasing it; waiting ${waitMs / 1000} s (two of its heartbeats, --leader-poll) for it to stop before this run starts`,
  );
  const signal = request.signal ? AbortSignal.any([request.signal, held.lost]) : held.lost;
  if (!signal.aborted)
    await new Promise<void>((done) => {
      const timer = setTimeout(done, waitMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        done();
      });
    });
  request.signal?.throwIfAborted();
  held.checkHeld();
}
