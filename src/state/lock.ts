// One run at a time per state file. Two runs that interleave can leave the service with the older
// value while the state records the newer one as applied, or lose a protection one of them recorded.
// The lock is a file beside the state, created exclusively, naming its holder (host, boot, PID
// namespace, pid, command, since when) and rewritten every few seconds while held (lock-file.ts). A
// waiting run takes it over only when that heartbeat is older than LOCK_STALE_MS, or when the holder
// provably ran in this very host and PID namespace and its process is gone (lock-takeover.ts): a pid
// read in another container's namespace names another process. Creating it also proves, before the
// first change is sent, that the state's directory is writable.
//
// Why not a library: proper-lockfile's lock is an empty directory refreshed by its mtime, so it cannot
// say who holds it (the holder must be named to the waiting user), its stale takeover removes a lock
// another run may have just taken over, and it installs exit and signal handlers of its own. OS
// advisory locks (flock, fcntl) do hold across containers of one kernel, but over NFS they depend on the
// lock daemon, cannot name their holder, and need a native addon in Node.
import { setTimeout as pause } from 'node:timers/promises';
import { StateLockError } from './lock-error.js';
import { createLock, type StateLock } from './lock-file.js';
import { holderHere } from './lock-holder.js';
import { abandonment, readLock, removeAbandoned } from './lock-takeover.js';
import { refuseNotRegular, refusePlanted, whereItLands } from './private-file.js';

export { type StateLock, StateLockError };

/** A lock whose heartbeat is older than this is abandoned, wherever its holder runs. */
export const LOCK_STALE_MS = 30_000;

export interface LockOptions {
  /** How long to wait for another run to finish before giving up (default: the stale time and 5 s). */
  waitMs?: number;
  /** Between two looks at a held lock. */
  pollMs?: number;
  /** The heartbeat's age past which a lock is abandoned (LOCK_STALE_MS; shorter only in tests). */
  staleMs?: number;
  /** What this process is, as others are told while it holds the lock: `websites-sync --once`. */
  command?: string;
  /** Stops the wait for another run's lock (the AbortSignal's reason is thrown). */
  signal?: AbortSignal;
  /** Told that the run waits, that it took an abandoned lock over, or that its heartbeat failed. */
  warn?: (message: string) => void;
}

export async function lockState(path: string, options: LockOptions = {}): Promise<StateLock> {
  await checkStatePath(path);
  // Beside the file the state is written to: a link and its target are one state, with one lock.
  const lockPath = `${await whereItLands(path)}.lock`;
  // Read to learn its holder: a FIFO there would block that read forever.
  await refuseNotRegular(lockPath, (problem) => `the state's lock file ${lockPath} ${problem}; remove it`);
  await refusePlanted(lockPath);
  const staleMs = options.staleMs ?? LOCK_STALE_MS;
  const waitMs = options.waitMs ?? staleMs + 5_000;
  const me = await holderHere(options.command ?? 'websites-sync');
  const heartbeat = { heartbeatMs: Math.max(10, Math.floor(staleMs / 6)), ...warnOf(options) };
  const deadline = Date.now() + waitMs;
  let told = false;
  let tookOver: string | undefined;
  let unseen = 0;
  // A stop ends the pause at once, and the loop's first line throws its reason.
  const waitAWhile = () =>
    pause(options.pollMs ?? 100, undefined, options.signal ? { signal: options.signal } : {}).catch(() => {});
  for (;;) {
    options.signal?.throwIfAborted();
    const held = await createLock(lockPath, me, heartbeat);
    // Said once the lock is ours: another run may have been quicker to make a new one.
    if (held && tookOver) options.warn?.(tookOver);
    if (held) return held;
    const found = await readLock(lockPath);
    tookOver = undefined;
    if (found === undefined) {
      // Released meanwhile: made again at once. A lock there but never seen (made and removed again at
      // every look, or a link to nothing) is waited for as a held one, up to the same deadline.
      unseen += 1;
      if (unseen > 1 && Date.now() >= deadline) throw neverRead(path, lockPath, waitMs);
      if (unseen > 1) await waitAWhile();
      continue;
    }
    unseen = 0;
    const why = abandonment(found, { lockPath, me, staleMs });
    if (why !== undefined && (await removeAbandoned(lockPath, found))) {
      tookOver = `took over the lock of the state file ${path} from ${found.who}: ${why}`;
      continue;
    }
    const rule = `a lock is taken over once its heartbeat is older than ${seconds(staleMs)}`;
    if (Date.now() >= deadline) {
      throw new StateLockError(
        `the state file ${path} is locked by ${found.who}; gave up waiting after ${seconds(waitMs)} (one run at a time per state file; ${rule})`,
      );
    }
    if (!told) {
      options.warn?.(
        `the state file ${path} is locked by ${found.who}; waiting up to ${seconds(waitMs)} for it to finish (${rule})`,
      );
      told = true;
    }
    await waitAWhile();
  }
}

function neverRead(path: string, lockPath: string, waitMs: number): StateLockError {
  return new StateLockError(
    `the state file ${path} could not be locked: ${lockPath} is there but could not be read at any look (made and removed again each time, or a link to nothing); gave up after ${seconds(waitMs)}. Remove it if no run is using the state`,
  );
}

function warnOf(options: LockOptions): { warn?: (message: string) => void } {
  return options.warn ? { warn: options.warn } : {};
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** A directory, a device, a FIFO or a socket there would be replaced by the atomic rename, or block. */
function checkStatePath(path: string): Promise<void> {
  return refuseNotRegular(
    path,
    (problem) =>
      `the state file ${path} ${problem}; point --state-file (WEBSITES_SYNC_STATE_FILE) at a regular file`,
  );
}
