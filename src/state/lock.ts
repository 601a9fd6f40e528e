// One run at a time per state file. Two runs that interleave can leave the service with the older
// value while the state records the newer one as applied, and every later run then says "No changes"
// forever. The lock is a file beside the state, created exclusively and holding the owner's pid; a
// lock whose process is gone is taken over. Creating it also proves, before the first change is sent,
// that the state's directory is writable.
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { StateLockError } from './lock-error.js';
import { refuseNotRegular, whereItLands } from './private-file.js';

export { StateLockError };

export interface StateLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** How long to wait for another run to finish before giving up. */
  waitMs?: number;
  /** Between two looks at a held lock. */
  pollMs?: number;
  /** The run's stop: the wait for another run ends at once (rejecting with an AbortError). */
  signal?: AbortSignal;
}

/**
 * The lock files this process holds now. A lock naming our own pid that is not one of them was left by
 * an earlier process that had the same pid: in a container the tool is PID 1 on every start, so a run
 * killed there (SIGKILL, out of memory) leaves a lock saying 1 that would otherwise block every later
 * start forever.
 */
const heldHere = new Set<string>();

export async function lockState(path: string, options: LockOptions = {}): Promise<StateLock> {
  await checkStatePath(path);
  // Beside the file the state is written to: a link and its target are one state, with one lock.
  const lockPath = `${await whereItLands(path)}.lock`;
  // Read to learn its owner: a FIFO there would block that read forever.
  await refuseNotRegular(lockPath, (problem) => `the state's lock file ${lockPath} ${problem}; remove it`);
  const deadline = Date.now() + (options.waitMs ?? 5_000);
  for (;;) {
    const held = await tryCreate(lockPath);
    if (held) return held;
    const owner = await ownerOf(lockPath);
    if (owner === undefined ? await abandoned(lockPath) : !holds(owner, lockPath)) {
      // Left by a process that died: take it over (the next attempt creates it afresh).
      await unlink(lockPath).catch(() => {});
      continue;
    }
    if (Date.now() >= deadline) {
      throw new StateLockError(
        `another run (pid ${owner}) holds ${path}; wait for it to finish (one run at a time per state file)`,
      );
    }
    await sleep(options.pollMs ?? 100, undefined, options.signal ? { signal: options.signal } : {});
  }
}

/** A directory, a device, a FIFO or a socket there would be replaced by the atomic rename, or block. */
function checkStatePath(path: string): Promise<void> {
  return refuseNotRegular(
    path,
    (problem) =>
      `the state file ${path} ${problem}; point --state-file (WEBSITES_SYNC_STATE_FILE) at a regular file`,
  );
}

async function tryCreate(lockPath: string): Promise<StateLock | undefined> {
  try {
    const handle = await open(lockPath, 'wx', 0o600);
    await handle.writeFile(`${process.pid}\n`);
    await handle.close();
    heldHere.add(lockPath);
    return {
      release: async () => {
        heldHere.delete(lockPath);
        await unlink(lockPath).catch(() => {});
      },
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return undefined;
    throw new StateLockError(
      `cannot write beside the state file (${lockPath}: ${code ?? (error as Error).message}); make its directory writable or choose another --state-file; nothing was changed`,
    );
  }
}

async function ownerOf(lockPath: string): Promise<number | undefined> {
  const text = await readFile(lockPath, 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A lock without a pid is being written right now, unless it has stayed empty for a while. */
async function abandoned(lockPath: string): Promise<boolean> {
  const info = await stat(lockPath).catch(() => undefined);
  return info === undefined || Date.now() - info.mtimeMs > 2_000;
}

/** Whether the process named by a lock still holds it. */
function holds(pid: number, lockPath: string): boolean {
  // Our own pid: held only if this process took it (and has not released it), not by an earlier holder.
  return pid === process.pid ? heldHere.has(lockPath) : isAlive(pid);
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
