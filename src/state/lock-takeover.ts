import type { Stats } from 'node:fs';
import { type FileHandle, open, stat, unlink } from 'node:fs/promises';
import { isHeldHere } from './lock-file.js';
import { describeHolder, holderFrom, type LockHolder, sameProcessSpace } from './lock-holder.js';
import { openForReading, PathChanged } from './private-file.js';

// Whether another run's lock is still held, and taking it over when it is not. A lock is abandoned
// when its heartbeat is older than the stale time, wherever its holder runs (another container, another
// host on a shared volume). Its pid is looked at only when the holder provably ran in this host's boot
// and this PID namespace: anywhere else the same number names another process.

/** Another run's lock, as read now. */
export interface FoundLock {
  /** Its holder, when the lock records one (a lock of an earlier version holds only a pid). */
  holder?: LockHolder;
  /** Who holds it, in words. */
  who: string;
  /** Since its last heartbeat (or its last write), by this machine's clock. */
  ageMs: number;
  file: Stats;
}

/** The lock at `lockPath`, or undefined when there is none (released meanwhile). */
export async function readLock(lockPath: string, now = Date.now()): Promise<FoundLock | undefined> {
  let handle: FileHandle;
  try {
    // A FIFO put there meanwhile must not hang the run; NFS must show the file as it is now.
    handle = await openForReading(lockPath);
  } catch (error) {
    // Released meanwhile, or taken and released again while it was opened: the caller looks again.
    if (error instanceof PathChanged || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const file = await handle.stat();
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = file.isFile() ? await handle.read(buffer, 0, buffer.length, 0) : { bytesRead: 0 };
    return { ...parseLock(buffer.subarray(0, bytesRead).toString('utf8'), file.mtimeMs, now), file };
  } finally {
    await handle.close();
  }
}

function parseLock(text: string, mtimeMs: number, now: number): Omit<FoundLock, 'file'> {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    record = undefined;
  }
  const holder = holderFrom(record);
  const heartbeat = holder ? Date.parse(String((record as { heartbeat?: unknown }).heartbeat)) : Number.NaN;
  // Either clock saying the lock is fresh is enough: a lock is never taken over on one clock's word.
  const ageMs = now - Math.max(mtimeMs, Number.isNaN(heartbeat) ? 0 : heartbeat);
  if (holder) return { holder, who: describeHolder(holder, now), ageMs };
  const legacy = /^(\d{1,10})\n?$/.exec(text)?.[1];
  const who = legacy
    ? `an earlier version of websites-sync (pid ${legacy}, host unknown)`
    : 'a run whose lock cannot be read yet';
  return { who, ageMs };
}

/**
 * Why a lock is abandoned, or undefined while it is held. `me` is this process as a holder.
 */
export function abandonment(
  found: FoundLock,
  options: { lockPath: string; me: LockHolder; staleMs: number },
): string | undefined {
  const { holder } = found;
  if (holder && sameProcessSpace(holder, options.me)) {
    if (holder.pid === options.me.pid) {
      // In a container started again in the same namespace, or a pid reused: not our own lock.
      if (!isHeldHere(options.lockPath)) return 'an earlier process with this pid left it';
    } else if (!isAlive(holder.pid)) {
      return `its process (pid ${holder.pid}) is gone`;
    }
  }
  if (found.ageMs > options.staleMs) {
    return `its heartbeat is ${Math.round(found.ageMs / 1000)} s old (over ${Math.round(options.staleMs / 1000)} s)`;
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Left by a process that crashed while taking a lock over (which takes milliseconds). */
const BREAKER_STALE_MS = 10_000;

/**
 * Removes an abandoned lock, unless it changed since it was judged (a heartbeat, or another run that
 * took it over first). Two runs that both found it abandoned must not both remove it: the second would
 * remove the first one's new lock. So a remover holds `<lock>.takeover`, created exclusively, while it
 * checks and removes. Returns whether the lock is gone.
 */
export async function removeAbandoned(lockPath: string, judged: FoundLock): Promise<boolean> {
  const breaker = `${lockPath}.takeover`;
  let handle: FileHandle;
  try {
    handle = await open(breaker, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const info = await stat(breaker).catch(() => undefined);
    if (info?.isFile() && Date.now() - info.mtimeMs > BREAKER_STALE_MS) await unlink(breaker).catch(() => {});
    return false;
  }
  try {
    const now = await stat(lockPath).catch(() => undefined);
    if (now === undefined) return true;
    const unchanged =
      now.ino === judged.file.ino && now.dev === judged.file.dev && now.mtimeMs === judged.file.mtimeMs;
    if (unchanged) await unlink(lockPath);
    return unchanged;
  } finally {
    await handle.close();
    await unlink(breaker).catch(() => {});
  }
}
