import type { Client, ClientConfig } from 'pg';
import { StateLockError } from '../lock-error.js';
import type { LockHolder } from '../lock-holder.js';
import type { HeldBy } from '../store-types.js';
import { CONNECT_TIMEOUT_MS, explainClientError, explainConnectError } from './connect-errors.js';
import { type PostgresLocation, quoted } from './location.js';

// One connection of our own per lock: a session-level advisory lock belongs to the connection, the
// server releases it when the connection ends (a killed process, a lost network), and every write of
// the lock's holder goes through that same connection, so no write can land after the lock is gone.

export interface Connection {
  client: Client;
  /** Aborted when the connection ends without our asking: the lock it held is gone. */
  lost: AbortSignal;
  /** Throws when the connection is lost: nothing is written after. */
  checkHeld(): void;
  /** The server's process of this session, as pg_locks names it, and when it started (a pid is reused). */
  backendPid: number;
  backendStart: string;
  /** Ends the connection under its client, saying why: `lost` fires with that reason. */
  drop(reason: string): void;
  close(): Promise<void>;
}

/** A query's answer, by default (`--timeout` sets it, as for the service's answers). */
const QUERY_TIMEOUT_MS = 30_000;
/** Server side, a statement waiting for a lock another session holds on the tool's tables. */
const LOCK_TIMEOUT_MS = 10_000;

/** node-postgres, loaded only when a PostgreSQL state is used: a file state's start-up does not pay. */
async function clientClass(): Promise<typeof Client> {
  return (await import('pg')).default.Client;
}

/**
 * Every wait is bounded: the connection (CONNECT_TIMEOUT_MS), each query's answer (`queryTimeoutMs`,
 * client side: a server that accepted and went silent), a statement behind another session's lock
 * (server side). A query left unanswered ends the connection: the lock it held is then released by the
 * server, and `lost` says so to the run, which starts nothing more.
 */
export async function connect(
  location: PostgresLocation,
  applicationName: string,
  queryTimeoutMs = QUERY_TIMEOUT_MS,
): Promise<Connection> {
  const Pg = await clientClass();
  const config: ClientConfig = {
    connectionString: location.connectionString,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: applicationName,
    // Client side a little longer than the server's own bound (set below), so a statement the server
    // can still answer is cancelled cleanly there rather than cut here.
    query_timeout: clientBound(queryTimeoutMs),
  };
  const client = newClient(Pg, config, location);
  const lostController = new AbortController();
  let closing = false;
  const lose = (reason: string) => {
    if (!closing && !lostController.signal.aborted) lostController.abort(new StateLockError(reason));
  };
  client.on('error', (error) => lose(`the connection to ${location.shown} failed: ${error.message}`));
  client.on('end', () => lose(`the connection to ${location.shown} ended`));
  // Ends the connection under its client, saying why.
  const drop = (reason: string) => {
    lose(reason);
    client.connection.stream.destroy();
  };
  boundQueries(client, drop, location, clientBound(queryTimeoutMs));
  await client.connect().catch((error: unknown) => {
    throw explainConnectError(error, location, true);
  });
  const backend = await setUp(client, queryTimeoutMs).catch((error: unknown) => {
    // Nothing holds a connection whose set-up failed: its socket would keep the process alive.
    client.connection.stream.destroy();
    throw error instanceof StateLockError ? error : explainConnectError(error, location, true);
  });
  return {
    client,
    lost: lostController.signal,
    checkHeld: () => {
      if (lostController.signal.aborted) throw lostController.signal.reason as Error;
    },
    backendPid: backend.pid,
    backendStart: backend.start,
    drop,
    close: async () => {
      closing = true;
      // A server that stopped answering never closes its side: the socket is destroyed after a while.
      const destroy = setTimeout(() => client.connection.stream.destroy(), 1_000);
      destroy.unref();
      await client.end().catch(() => {});
      clearTimeout(destroy);
    },
  };
}

/** node-postgres reads the URL's files (sslrootcert, sslcert, sslkey) as it builds the client. */
function newClient(Pg: typeof Client, config: ClientConfig, location: PostgresLocation): Client {
  try {
    return new Pg(config);
  } catch (error) {
    throw explainClientError(error, location);
  }
}

/** A tenth longer than the server's bound, at most 2 s: the client's cut comes after the server's cancel. */
function clientBound(queryTimeoutMs: number): number {
  return queryTimeoutMs + Math.min(2_000, Math.round(queryTimeoutMs / 10));
}

/**
 * The session's bounds, set after the start-up rather than as start-up parameters (which PgBouncer
 * refuses), and who the session is on the server, as pg_locks and pg_stat_activity name it. The server
 * notices a vanished client within about 25 s through the keepalives (and releases its locks).
 *
 * A role's idle_session_timeout (common on managed servers) is turned off: a lock's connection is idle
 * by design while the run waits on the service, and a leader's between runs; ended, it would take the
 * lock with it. The keepalives and the heartbeat find a vanished client instead. Set only where the
 * server knows it (PostgreSQL 14 and later). idle_in_transaction_session_timeout is left as the operator
 * set it: no transaction of the tool waits on anything but the server, so it ends only a process that
 * stalled mid-transaction, holding the tool's rows.
 */
async function setUp(client: Client, queryTimeoutMs: number): Promise<{ pid: number; start: string }> {
  await client.query(
    `SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3; SET statement_timeout = ${Math.round(queryTimeoutMs)}; SET lock_timeout = ${Math.min(LOCK_TIMEOUT_MS, Math.round(queryTimeoutMs))}; SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'idle_session_timeout'`,
  );
  const { rows } = await client.query<{ pid: number; start: string }>(
    // In ISO 8601 at UTC, which every session reads back the same whatever its DateStyle and TimeZone
    // (a text in the session's own style may not be: `SQL` style with a zone abbreviation such as IST).
    `SELECT pid, to_char(backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS start
     FROM pg_stat_activity WHERE pid = pg_backend_pid()`,
  );
  return { pid: rows[0]?.pid ?? 0, start: rows[0]?.start ?? '' };
}

/**
 * Each query's failure in the operator's terms when it is one of the bounds: no answer within the
 * timeout (then `unanswered` ends the connection), or the server's own timeouts. Other errors stay as
 * they are (their codes are read by the callers).
 */
function boundQueries(
  client: Client,
  unanswered: (message: string) => void,
  location: PostgresLocation,
  timeoutMs: number,
): void {
  // node-postgres's query() has many overloads; every one the store uses returns a promise.
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      const { code, message } = error as { code?: string; message?: string };
      if (message === 'Query read timeout') {
        const text = `PostgreSQL at ${location.shown} did not answer a query within ${Number((timeoutMs / 1000).toFixed(1))} s; the connection was ended, nothing more is written`;
        unanswered(text);
        throw new StateLockError(text);
      }
      if (code === '57014' || code === '55P03') {
        throw new StateLockError(
          `PostgreSQL at ${location.shown}: ${message} (another session holds the tool's tables, or the server is overloaded); nothing more is written`,
        );
      }
      throw error;
    });
  };
}

export type LockRole = 'run' | 'leader';

export interface LockKey {
  schema: string;
  account: string;
  role: LockRole;
}

const keyArgs = (key: LockKey) => [`websites-sync ${key.role} ${key.schema}`, key.account];

/**
 * Takes the advisory lock if free, and records who holds it where others can read it: both or neither.
 * A session-level advisory lock outlives a failed statement and its transaction (and is re-entrant: each
 * unlock undoes one take), so a holder row that cannot be written (another session holds the table, a
 * read-only server) must be followed by the unlock, or the lock stays on this connection for as long
 * as it lives (a leader's: until the daemon stops).
 */
export async function tryAdvisoryLock(
  connection: Connection,
  key: LockKey,
  holder: Pick<LockHolder, 'host' | 'pid' | 'command'>,
): Promise<false | { leftBehind: boolean }> {
  const { client } = connection;
  const got = await client.query<{ got: boolean }>(
    'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS got',
    keyArgs(key),
  );
  if (!got.rows[0]?.got) return false;
  try {
    // A row of another session, still there when the lock is free: its holder did not release it (the
    // server ended its session under it), and may not know yet (PostgresStore's run lock). Whether
    // that session still shows is no proof it let go: a session's locks are released before it leaves
    // pg_stat_activity. Another session's is any but this one's (a process id reused by this one is
    // not this one's row: it was written before this session started).
    const { rows } = await client.query<{ left_behind: boolean }>(
      `WITH before AS (
         SELECT backend_pid FROM ${quoted(key.schema)}.lock_holders h
         WHERE account = $1 AND role = $2 AND NOT (h.backend_pid = pg_backend_pid()
           AND h.since >= (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()))
       )
       INSERT INTO ${quoted(key.schema)}.lock_holders (account, role, host, pid, command, since, backend_pid)
       VALUES ($1, $2, $3, $4, $5, now(), pg_backend_pid())
       ON CONFLICT (account, role) DO UPDATE SET host = $3, pid = $4, command = $5, since = now(), backend_pid = pg_backend_pid()
       RETURNING EXISTS (SELECT 1 FROM before) AS left_behind`,
      [key.account, key.role, holder.host, holder.pid, holder.command],
    );
    return { leftBehind: rows[0]?.left_behind === true };
  } catch (error) {
    await unlock(connection, key);
    throw error;
  }
}

/** The holder row goes, and the lock goes even when the row cannot (see tryAdvisoryLock). */
export async function releaseAdvisoryLock(connection: Connection, key: LockKey): Promise<void> {
  if (connection.lost.aborted) return;
  try {
    await connection.client.query(
      `DELETE FROM ${quoted(key.schema)}.lock_holders WHERE account = $1 AND role = $2 AND backend_pid = pg_backend_pid()`,
      [key.account, key.role],
    );
  } finally {
    await unlock(connection, key);
  }
}

/**
 * Undoes one take of the lock. When even that fails, the connection is ended: the server then releases
 * every lock it held (a leader's leadership too, taken again at the next election), rather than one
 * being kept with no holder row to name it.
 */
async function unlock(connection: Connection, key: LockKey): Promise<void> {
  if (connection.lost.aborted) return;
  await connection.client
    .query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', keyArgs(key))
    .catch((error: unknown) =>
      connection.drop(`could not release the ${key.role} lock: ${(error as Error).message}`),
    );
}

/**
 * The one rule for the session a server process id names, read by the heartbeat and by readHolders: the
 * server gives a process id to a new session once the old one has ended, so `pid` names the session
 * known alive at `at` (its own start; when it wrote its holder row) only while the process there now
 * started no later than that.
 */
export function sessionAlive(pid: string, at: string): string {
  return `EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = ${pid} AND a.backend_start <= ${at})`;
}

/**
 * The holders whose session is still there: a row left by a killed process names nobody, even once its
 * process id is another session's.
 */
export async function readHolders(
  client: Client,
  schema: string,
  account: string | undefined,
): Promise<HeldBy[]> {
  const rows = await client.query<{
    host: string;
    pid: number;
    command: string;
    since: Date;
    role: LockRole;
  }>(
    `SELECT host, pid, command, since, role FROM ${quoted(schema)}.lock_holders h
     WHERE ($1::text IS NULL OR account = $1) AND ${sessionAlive('h.backend_pid', 'h.since')}
     ORDER BY role DESC, since`,
    [account ?? null],
  );
  return rows.rows.map((row) => ({ ...row, since: new Date(row.since).toISOString() }));
}
