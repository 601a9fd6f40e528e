// One run at a time per state file. Two runs that interleave can leave the service with the older
// value while the state records the newer one as applied, and every later run then says "No changes"
// forever. The lock is a file beside the state, created exclusively and holding the owner's pid; a
// lock whose process is gone is taken over. Creating it also proves, before the first change is sent,
// that the state's directory is writable.
import { open, readFile, stat, unlink } from 'node:fs/promises';

export interface StateLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** How long to wait for another run to finish before giving up. */
  waitMs?: number;
  /** Between two looks at a held lock. */
  pollMs?: number;
}

export class StateLockError extends Error {}

export async function lockState(path: string, options: LockOptions = {}): Promise<StateLock> {
  await checkStatePath(path);
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + (options.waitMs ?? 5_000);
  for (;;) {
    const held = await tryCreate(lockPath);
    if (held) return held;
    const owner = await ownerOf(lockPath);
    if (owner === undefined ? await abandoned(lockPath) : !isAlive(owner)) {
      // Left by a process that died: take it over (the next attempt creates it afresh).
      await unlink(lockPath).catch(() => {});
      continue;
    }
    if (Date.now() >= deadline) {
      throw new StateLockError(
        `another run (pid ${owner}) holds ${path}; wait for it to finish (one run at a time per state file)`,
      );
    }
    await new Promise((done) => setTimeout(done, options.pollMs ?? 100));
  }
}

async function checkStatePath(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) {
    throw new StateLockError(
      `the state file ${path} is a directory; point --state-file (WEBSITES_SYNC_STATE_FILE) at a file`,
    );
  }
}

async function tryCreate(lockPath: string): Promise<StateLock | undefined> {
  try {
    const handle = await open(lockPath, 'wx', 0o600);
    await handle.writeFile(`${process.pid}\n`);
    await handle.close();
    return { release: () => unlink(lockPath).catch(() => {}) };
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
