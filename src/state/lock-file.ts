import type { Stats } from 'node:fs';
import { type FileHandle, open, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StateLockError } from './lock-error.js';
import { holderRecord, type LockHolder } from './lock-holder.js';

// The lock file while this process holds it: created exclusively (so only one run ever creates it),
// holding who we are, and rewritten every few seconds (the heartbeat) through the handle it was created
// with, so that a heartbeat can only ever land in our own lock, never in one another run made after
// taking ours over. Waiters judge the lock alive by that heartbeat (lock-takeover.ts).

export interface StateLock {
  /** Who holds it: this process. */
  readonly holder: LockHolder;
  release(): Promise<void>;
}

export interface HeartbeatOptions {
  heartbeatMs: number;
  /** Told when the heartbeat cannot be written, or the lock was taken over from under us. */
  warn?: (message: string) => void;
}

/**
 * The lock files this process holds now. A lock naming our own pid in our own PID namespace that is not
 * one of them was left by an earlier process that had the same pid: one killed there (SIGKILL, out of
 * memory) would otherwise block every later start with that pid.
 */
const heldHere = new Set<string>();

export function isHeldHere(lockPath: string): boolean {
  return heldHere.has(lockPath);
}

/** The lock, or undefined when another run's lock is there. */
export async function createLock(
  lockPath: string,
  holder: LockHolder,
  options: HeartbeatOptions,
): Promise<StateLock | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(lockPath, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return undefined;
    const folder = dirname(lockPath);
    const fix =
      code === 'ENOENT'
        ? `its folder ${folder} does not exist: create it (mkdir -p ${folder}) or name another state file`
        : 'make its folder writable or name another state file';
    throw new StateLockError(
      `cannot write beside the state file (${lockPath}: ${code ?? (error as Error).message}); ${fix}; nothing was changed`,
    );
  }
  try {
    await writeRecord(handle, holder);
    const mine = await handle.stat();
    heldHere.add(lockPath);
    return heldLock(lockPath, handle, mine, holder, options);
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(lockPath).catch(() => {});
    throw error;
  }
}

function heldLock(
  lockPath: string,
  handle: FileHandle,
  mine: Stats,
  holder: LockHolder,
  options: HeartbeatOptions,
): StateLock {
  let timer: NodeJS.Timeout | undefined;
  let beating: Promise<void> = Promise.resolve();
  let stopped = false;
  let warned = false;
  const warnOnce = (message: string) => {
    if (!warned) options.warn?.(message);
    warned = true;
  };
  const beat = async (): Promise<void> => {
    if (!isSameFile(await stat(lockPath).catch(() => undefined), mine)) {
      stopped = true;
      warnOnce(
        `the state's lock ${lockPath} was taken over by another run while this one held it (its heartbeat stopped for too long: a paused process or a hung file system); two runs may now write the state`,
      );
      return;
    }
    await writeRecord(handle, holder).catch((error: Error) =>
      warnOnce(
        `cannot refresh the state's lock ${lockPath} (${error.message}); another run may take it over`,
      ),
    );
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      beating = beat().finally(schedule);
    }, options.heartbeatMs);
    // The heartbeat never keeps the process alive by itself.
    timer.unref();
  };
  schedule();
  return {
    holder,
    release: async () => {
      stopped = true;
      clearTimeout(timer);
      await beating;
      heldHere.delete(lockPath);
      // Only our own lock: one another run made after taking ours over stays.
      if (isSameFile(await stat(lockPath).catch(() => undefined), mine))
        await unlink(lockPath).catch(() => {});
      await handle.close().catch(() => {});
    },
  };
}

function isSameFile(a: Stats | undefined, b: Stats): boolean {
  return a !== undefined && a.ino === b.ino && a.dev === b.dev;
}

/** The holder and the heartbeat, written over the whole file (the same length each time). */
async function writeRecord(handle: FileHandle, holder: LockHolder): Promise<void> {
  const text = `${JSON.stringify({ websites_sync_lock: 1, ...holderRecord(holder), heartbeat: new Date().toISOString() })}\n`;
  await handle.write(text, 0, 'utf8');
  await handle.truncate(Buffer.byteLength(text));
}
