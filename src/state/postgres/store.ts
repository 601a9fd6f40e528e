import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { sayCondition } from '../../model/index.js';
import { accountsOf, ofAccounts } from '../contents.js';
import { canonicalBaseUrl } from '../file.js';
import { heldMessage } from '../holder.js';
import { StateLockError } from '../lock-error.js';
import type { Notified } from '../notified.js';
import { storedPart } from '../state.js';
import type {
  HeldBy,
  Leadership,
  LockRequest,
  ReadOptions,
  ReadResult,
  StateSession,
  StateStore,
  StoreContents,
} from '../store-types.js';
import { withAccountsLocked } from './accounts-lock.js';
import { explainConnectError } from './connect-errors.js';
import {
  type Connection,
  connect,
  type LockKey,
  readHolders,
  releaseAdvisoryLock,
  tryAdvisoryLock,
} from './connection.js';
import { afterLostHolder, startHeartbeat } from './heartbeat.js';
import type { PostgresLocation } from './location.js';
import { migrate } from './migrations.js';
import {
  insertBackup,
  nothingWritten,
  readAccount,
  readBackupRows,
  readContents,
  readNotifiedRow,
  replaceAccounts,
  saveAccount,
  stateOf,
  writeNotifiedRow,
  writtenOf,
} from './rows.js';

// The PostgreSQL backend: several processes on several machines share one account's state. Runs that
// may write take the run lock; daemons elect their leader with the leader lock, held while they lead.

export interface PostgresStoreOptions {
  location: PostgresLocation;
  /** The account: locks and state are keyed by it. Absent for `state show` and `state migrate`. */
  baseUrl?: string;
  /** Who we are, as the lock's holder is named to others. */
  command: string;
  logger?: Logger;
  /** Between two tries of a lock (a waiting run; a standby's heartbeat too). Default 250 ms. */
  pollMs?: number;
  /** How often a lock's holder (a run, a leader) checks that it still holds it; default 5 s. */
  heartbeatMs?: number;
  /** Each query's answer (`--timeout`); default QUERY_TIMEOUT_MS. */
  queryTimeoutMs?: number;
}

const NONE = { ids: [], domains: [], unknown: false, files: [] };

export async function openPostgresStore(options: PostgresStoreOptions): Promise<StateStore> {
  const store = new PostgresStore(options);
  // Created or upgraded once, at start-up: a missing privilege or a newer schema stops here.
  await store.withConnection((connection) => migrate(connection.client, options.location.schema));
  return store;
}

class PostgresStore implements StateStore {
  readonly shown: string;
  readonly backupsShown: string;
  readonly #options: PostgresStoreOptions;
  readonly #location: PostgresLocation;
  readonly #account: string | undefined;
  readonly #me: Pick<HeldBy, 'host' | 'pid' | 'command'>;

  constructor(options: PostgresStoreOptions) {
    this.#options = options;
    this.#location = options.location;
    this.shown = options.location.shown;
    this.backupsShown = `the backups table of ${options.location.shown}`;
    this.#account = options.baseUrl === undefined ? undefined : canonicalBaseUrl(options.baseUrl);
    this.#me = { host: hostname(), pid: process.pid, command: options.command };
  }

  #open(): Promise<Connection> {
    return connect(this.#location, 'websites-sync', this.#options.queryTimeoutMs);
  }

  /** Checks, on a connection of its own, that `connection` still holds its locks (heartbeat.ts). */
  #heartbeat(connection: Connection): () => void {
    return startHeartbeat(connection, this.#options.heartbeatMs ?? 5_000, () => this.#open(), this.shown);
  }

  async withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = await this.#open();
    try {
      return await work(connection);
    } catch (error) {
      throw explained(error, this.#location);
    } finally {
      await connection.close();
    }
  }

  #key(role: LockKey['role']): LockKey {
    if (this.#account === undefined)
      throw new StateLockError('internal: a PostgreSQL state used without its account');
    return { schema: this.#location.schema, account: this.#account, role };
  }

  async #read(connection: Connection, given: ReadOptions): Promise<ReadResult> {
    const stored = await readAccount(connection.client, this.#location.schema, this.#key('run').account);
    if (!stored) {
      sayCondition(given.conditions, given.logger, {
        key: `state:${this.shown}:none`,
        level: 'info',
        fields: { stage: 'state', state: this.shown },
        message: 'no state for this account yet: write-only fields will be resent once',
      });
    }
    const state = stateOf(stored, given.baseUrl, given.secret);
    if (stored) return { state, doubt: NONE };
    const hint = 'if they are kept in another database or schema, point --state at it';
    return {
      state,
      doubt: NONE,
      missing: { where: `state for this account in PostgreSQL at ${this.shown}`, hint },
    };
  }

  /** Reads and writes through the connection that holds the lock, and only while it holds it. */
  #session(connection: Connection, release: () => Promise<void>): StateSession {
    const { schema } = this.#location;
    const account = this.#key('run').account;
    let written = nothingWritten();
    return {
      read: async (given) => {
        connection.checkHeld();
        const result = await this.#read(connection, given);
        written = writtenOf(result.state);
        return result;
      },
      save: async (state) => {
        connection.checkHeld();
        await saveAccount(connection.client, schema, account, storedPart(state), written);
      },
      appendBackup: async (entry) => {
        connection.checkHeld();
        await insertBackup(connection.client, schema, account, entry);
      },
      lost: connection.lost,
      release,
    };
  }

  async #waitForRunLock(connection: Connection, request: LockRequest, waitMs: number): Promise<void> {
    const deadline = Date.now() + (request.waitMs ?? waitMs);
    const me = { ...this.#me, ...(request.command ? { command: request.command } : {}) };
    let told = false;
    for (;;) {
      const taken = await tryAdvisoryLock(connection, this.#key('run'), me);
      if (taken) {
        if (taken.leftBehind) await afterLostHolder(connection, this.#options.heartbeatMs ?? 5_000, request);
        return;
      }
      request.signal?.throwIfAborted();
      const holders = async () => readHolders(connection.client, this.#location.schema, this.#account);
      if (Date.now() >= deadline) {
        throw new StateLockError(heldMessage(await holders(), this.shown, this.#options.baseUrl ?? ''));
      }
      if (!told)
        request.warn?.(
          `waiting for the lock: ${heldMessage(await holders(), this.shown, this.#options.baseUrl ?? '')}`,
        );
      told = true;
      await new Promise((done) => setTimeout(done, this.#options.pollMs ?? 250));
    }
  }

  read(given: ReadOptions): Promise<ReadResult> {
    return this.withConnection((connection) => this.#read(connection, given));
  }

  async lock(request: LockRequest = {}): Promise<StateSession> {
    const connection = await this.#open();
    try {
      await this.#waitForRunLock(connection, request, 5_000);
    } catch (error) {
      await connection.close();
      throw explained(error, this.#location);
    }
    // As a leader's: a connection that goes silent while the run holds the lock (a partition, a
    // failover) is found within two heartbeats and ended, and the run starts nothing more.
    const stopHeartbeat = this.#heartbeat(connection);
    return this.#session(connection, async () => {
      stopHeartbeat();
      await releaseAdvisoryLock(connection, this.#key('run')).catch(() => {});
      await connection.close();
    });
  }

  async lead(): Promise<Leadership | undefined> {
    const connection = await this.#open();
    // Only a lock another daemon holds means standing by: an error (a read-only server, the holders'
    // table held) is one, or a daemon would stand by for ever behind no leader at all.
    const got = await tryAdvisoryLock(connection, this.#key('leader'), this.#me).catch(async (error) => {
      await connection.close();
      throw explained(error, this.#location);
    });
    if (!got) {
      await connection.close();
      return undefined;
    }
    const stopHeartbeat = this.#heartbeat(connection);
    return {
      lost: connection.lost,
      read: (given) => this.#read(connection, given),
      lock: async (request = {}) => {
        connection.checkHeld();
        // The leader waits longer: a `--once` run in progress is finishing its work.
        await this.#waitForRunLock(connection, request, 60_000);
        return this.#session(connection, () =>
          releaseAdvisoryLock(connection, this.#key('run')).catch(() => {}),
        );
      },
      release: async () => {
        stopHeartbeat();
        await releaseAdvisoryLock(connection, this.#key('leader')).catch(() => {});
        await connection.close();
      },
    };
  }

  holders(): Promise<HeldBy[]> {
    return this.withConnection((connection) =>
      readHolders(connection.client, this.#location.schema, this.#account),
    );
  }

  async readBackups() {
    const entries = await this.withConnection((c) => readBackupRows(c.client, this.#location.schema));
    return { entries, unreadable: [] };
  }

  contents(): Promise<StoreContents> {
    return this.withConnection((connection) => readContents(connection.client, this.#location.schema));
  }

  async replaced(contents: StoreContents): Promise<string[]> {
    return [...accountsOf(ofAccounts(await this.contents(), accountsOf(contents)))];
  }

  replace(contents: StoreContents): Promise<void> {
    const { schema } = this.#location;
    const accounts = [...accountsOf(contents)];
    return this.withConnection((connection) =>
      withAccountsLocked(connection, { schema, shown: this.shown }, accounts, this.#me, () =>
        replaceAccounts(connection.client, schema, accounts, {
          states: contents.states.map((state) => ({ account: canonicalBaseUrl(state.base_url), state })),
          backups: contents.backups.map((entry) => ({ account: canonicalBaseUrl(entry.base_url), entry })),
        }),
      ),
    );
  }

  readNotified(): Promise<Notified> {
    const account = this.#key('run').account;
    return this.withConnection((c) => readNotifiedRow(c.client, this.#location.schema, account));
  }

  writeNotified(sent: Notified): Promise<void> {
    const account = this.#key('run').account;
    return this.withConnection((c) => writeNotifiedRow(c.client, this.#location.schema, account, sent));
  }

  async close(): Promise<void> {}
}

/** A server's error (it has a code) in the operator's terms; the tool's own as it is. */
function explained(error: unknown, location: PostgresLocation): unknown {
  return (error as { code?: string }).code ? explainConnectError(error, location) : error;
}
