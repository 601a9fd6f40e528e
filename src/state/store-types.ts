import type { Logger } from 'pino';
import type { ConditionSink } from '../model/index.js';
import type { BackupEntry, ReadBackups } from './backup-file.js';
import type { LockHolder } from './lock-holder.js';
import type { Notified } from './notified.js';
import type { StateData } from './state.js';

// The seam between the pipeline and where its state lives. The pipeline needs five things of a state:
// a lock, a read, a write, the backups of deleted websites, and who holds the lock. A file beside the
// manifest and a PostgreSQL schema both give them; which one a process has is chosen once, at start-up
// (`openStateStore`), and no stage outside `state/` knows which.

/** Who holds a state's lock (lock-holder.ts, the file's lock and every backend's), and in which role. */
export interface HeldBy extends LockHolder {
  /** `run`: a run that may write; `leader`: a daemon leading its replicas. */
  role?: 'run' | 'leader';
}

/** Websites that a state this run could not use may protect: deletes of them need --force. */
export interface DoubtfulProtections {
  ids: readonly string[];
  domains: readonly string[];
  unknown: boolean;
  /** Where the operator should look (a file kept aside). */
  files: readonly string[];
}

export interface ReadOptions {
  baseUrl: string;
  /** Keys the fingerprints (derived from the API key, never written). */
  secret: string;
  dryRun: boolean;
  logger: Logger;
  now?: () => number;
  /** A daemon's: what every resync meets again (no state yet) is said once while it stands. */
  conditions?: ConditionSink;
}

export interface ReadResult {
  state: StateData;
  doubt: DoubtfulProtections;
  /** Where the state was looked for when there was none (a run that deletes says so). */
  missing?: MissingState;
}

/** Where a state was looked for and not found, in words: `state file at acct/.websites-sync-state.json`. */
export interface MissingState {
  where: string;
  /** How to point the tool at the right one: `if they are kept in another file, point --state-file at it`. */
  hint: string;
}

/** The state as held, without the in-memory keys: what `state migrate` copies. */
export type StoredState = Omit<StateData, 'key' | 'previousKeys'>;

/** Everything a store holds: every account's state and every backup. */
export interface StoreContents {
  states: StoredState[];
  backups: BackupEntry[];
}

/** A lock held by a run that may write: its reads and writes go through it, and only while it holds. */
export interface StateSession {
  read(options: ReadOptions): Promise<ReadResult>;
  save(state: StateData): Promise<void>;
  /** Before a delete; if it cannot be written, the delete is not sent. */
  appendBackup(entry: BackupEntry): Promise<void>;
  /**
   * Aborted when the lock is lost (PostgreSQL: the connection ended, and the server released the lock):
   * the run starts no new operation, and every write from then on throws.
   */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/** What a run needs: a lock to write under, or a read without one (a dry run). */
/** How a run asks for the lock. */
export interface LockRequest {
  /** How long to wait for another run before giving up, naming it. */
  waitMs?: number;
  /** What this run is, as others waiting are told (`websites-sync --once`). */
  command?: string;
  /** Stops the wait (its reason is thrown). */
  signal?: AbortSignal;
  /** Told that the run waits, took an abandoned lock over, or that its heartbeat failed. */
  warn?: (message: string) => void;
}

export interface StateAccess {
  /** Waits for another run (see LockRequest), then says who holds the lock. */
  lock(options?: LockRequest): Promise<StateSession>;
  read(options: ReadOptions): Promise<ReadResult>;
}

/** A daemon leading its replicas: it alone lists, plans and writes, for as long as `lost` is not aborted. */
export interface Leadership extends StateAccess {
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface StateStore extends StateAccess {
  /** Where it is, fit to print: the path, or the URL without its password. */
  readonly shown: string;
  /** Where the backups of deleted websites are, fit to print. */
  readonly backupsShown: string;
  /**
   * Daemons elect one leader: undefined when another one leads. A file's state has one daemon per file
   * (its lock is per run): leadership is always granted.
   */
  lead(): Promise<Leadership | undefined>;
  /** Who holds the run lock (or leads, when no run holds it); undefined when nobody. */
  holders(): Promise<HeldBy[]>;
  readBackups(): Promise<ReadBackups>;
  /** Every account's state and every backup, as held (for `state migrate` and `state show`). */
  contents(): Promise<StoreContents>;
  /**
   * The accounts whose state or backups `replace(contents)` would replace: those of `contents`, and for
   * a state file (which holds one account) the account it holds when `contents` brings a state.
   */
  replaced(contents: StoreContents): Promise<string[]>;
  /**
   * Replaces the state and backups of the accounts of `contents` with `contents`, under the lock; the
   * other accounts' are kept (a state file's account, which it holds alone, is replaced whole).
   */
  replace(contents: StoreContents): Promise<void>;
  /**
   * What the webhook took last for this account, per kind (notified.ts): `--once` tells a situation
   * that stands run after run once. Nothing when none was kept.
   */
  readNotified(): Promise<Notified>;
  /** Kept for the next run, without the lock: two runs at once may only tell the same twice. */
  writeNotified(sent: Notified): Promise<void>;
  close(): Promise<void>;
}
