import { stat } from 'node:fs/promises';
import {
  appendBackup,
  type BackupEntry,
  backupPathFor,
  checkBackupPath,
  readBackups,
} from './backup-file.js';
import { accountsOf, ofAccounts } from './contents.js';
import { canonicalBaseUrl, readStoredState, saveState, writePrivateFileAtomically } from './file.js';
import { readState } from './file-read.js';
import { lockState } from './lock.js';
import { StateLockError } from './lock-error.js';
import { readLock } from './lock-takeover.js';
import { readNotifiedFile, sentPathFor, writeNotifiedFile } from './notified.js';
import { whereItLands } from './private-file.js';
import type { StateData } from './state.js';
import type {
  HeldBy,
  LockRequest,
  ReadOptions,
  StateSession,
  StateStore,
  StoreContents,
} from './store-types.js';

// The file backend: the state file and, beside it, the backups of deleted websites. Its lock is the
// lock file of lock.ts, taken per run; one machine, one daemon per file.

export interface FileStoreOptions {
  path: string;
  /** `--backup-file`; default beside the state file. */
  backupFile?: string;
}

export function openFileStore(options: FileStoreOptions): StateStore {
  const { path } = options;
  const backupPath = backupPathFor(path, options.backupFile);
  const read = async (given: ReadOptions) => {
    const { state, doubt, missing } = await readState({ ...given, statePath: path });
    if (!missing) return { state, doubt };
    const hint = 'if they are kept in another file, point --state-file at it';
    return { state, doubt, missing: { where: `state file at ${path}`, hint } };
  };
  const lock = async (lockOptions: LockRequest = {}): Promise<StateSession> => {
    // Before anything is sent: a FIFO or a device where the backups go would block or swallow them.
    await checkBackupPath(path, options.backupFile);
    const held = await lockState(path, lockOptions);
    return {
      read,
      save: (state) => saveState(path, state),
      appendBackup: (entry) => appendBackup(backupPath, entry),
      // A file lock is not lost while its process lives.
      lost: new AbortController().signal,
      release: () => held.release(),
    };
  };
  const store: StateStore = {
    shown: path,
    backupsShown: backupPath,
    read,
    lock,
    lead: async () => ({ read, lock, lost: new AbortController().signal, release: async () => {} }),
    holders: () => fileHolders(path),
    readBackups: async () => {
      // A FIFO there would block the read forever; a device holds no backup.
      await checkBackupPath(path, options.backupFile);
      return readBackups(backupPath);
    },
    contents: () => fileContents(path, backupPath),
    replaced: async (contents) => {
      const held = await fileContents(path, backupPath);
      // The file holds one account's state, replaced whole when a state is brought; backups by account.
      const going = {
        states: contents.states.length > 0 ? held.states : [],
        backups: ofAccounts(held, accountsOf(contents)).backups,
      };
      return [...accountsOf(going)];
    },
    replace: (contents) => replaceFile(store, path, backupPath, contents),
    readNotified: () => readNotifiedFile(sentPathFor(path)),
    writeNotified: (sent) => writeNotifiedFile(sentPathFor(path), sent),
    close: async () => {},
  };
  return store;
}

/** The lock file names its holder (lock-holder.ts); a lock of an earlier version only its pid. */
async function fileHolders(path: string): Promise<HeldBy[]> {
  const found = await readLock(`${await whereItLands(path)}.lock`);
  return found?.holder ? [{ ...found.holder, role: 'run' }] : [];
}

async function fileContents(path: string, backupPath: string): Promise<StoreContents> {
  const { entries, unreadable } = await readBackups(backupPath);
  if (unreadable.length > 0) {
    throw new StateLockError(
      `the backup file ${backupPath} has line(s) ${unreadable.join(', ')} that are not a backup; repair it first (nothing would be lost silently)`,
    );
  }
  const read = await readStoredState(path);
  if (read === undefined && (await exists(path))) {
    throw new StateLockError(
      `the state file ${path} cannot be read (corrupt, or another version); repair it first`,
    );
  }
  // A copy or a count without them would look whole: as for the backup file, nothing is lost silently.
  if (read && read.dropped.length > 0) {
    throw new StateLockError(
      `the state file ${path} has entries that cannot be read (${read.dropped.join(', ')}); repair it first (nothing would be lost silently)`,
    );
  }
  return { states: read ? [read.data] : [], backups: entries };
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

async function replaceFile(
  store: StateStore,
  path: string,
  backupPath: string,
  contents: StoreContents,
): Promise<void> {
  if (contents.states.length > 1) {
    const accounts = contents.states.map((state) => state.base_url).join(', ');
    throw new StateLockError(
      `a state file holds one account, and the source holds ${contents.states.length} (${accounts}); choose one with --base-url`,
    );
  }
  const session = await store.lock();
  try {
    const [state] = contents.states;
    if (state) await saveState(path, { ...state, key: '' } satisfies StateData);
    // Other accounts' backups in the file are kept, before the copied ones.
    const copied = accountsOf(contents);
    const { entries } = await readBackups(backupPath);
    const others = entries.filter((entry) => !copied.has(canonicalBaseUrl(entry.base_url)));
    const lines = [...others, ...contents.backups]
      .map((entry: BackupEntry) => `${JSON.stringify(entry)}\n`)
      .join('');
    await writePrivateFileAtomically(backupPath, lines, 'cannot write the backup file');
  } finally {
    await session.release();
  }
}
