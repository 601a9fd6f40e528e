import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { StateLockError } from './lock-error.js';

// Every file the tool writes the account's settings to (the state, the backups of deleted websites, a
// saved plan) is for the operator's eyes only. `open(path, flags, 0o600)` sets the mode only when it
// creates the file: one that already exists (made by hand, copied, left by an older version, created
// under a permissive umask) would keep 0644. So every such file is opened here, and set to 0600 on the
// open handle before a byte is written.
//
// And it must be a regular file. A device (`/dev/null`), a FIFO or a socket at that path would be
// chmod-ed (as root, /dev/null made unusable for everyone else), replaced by the state's atomic rename,
// or block the open until someone reads it; whatever was written would be lost.

const PRIVATE_MODE = 0o600;

/** What a path holds when it is not a regular file ("a FIFO"), or undefined for a regular file. */
export function notRegular(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** "is a FIFO, not a regular file" ("is a directory"): what is wrong with a path that must hold a regular file. */
export function notRegularMessage(what: string): string {
  if (what === 'a directory' || what.startsWith('not ')) return `is ${what}`;
  return `is ${what}, not a regular file`;
}

/**
 * Refuses a path that exists and is not a regular file; a missing one is fine (it will be created).
 * `describe` makes the error from what is wrong ("is a FIFO, not a regular file").
 */
export async function refuseNotRegular(path: string, describe: (problem: string) => string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  const what = info && notRegular(info);
  if (what !== undefined) throw new StateLockError(describe(notRegularMessage(what)));
}

/**
 * Refuses what another user may have put at `path` for the tool to read or follow: an entry (a file or a
 * symbolic link) that is neither the running user's nor root's in a directory anyone can write (/tmp,
 * where anyone can make a name first), or a file anyone can write. What such an entry holds decides
 * what a run knows (a state without its protections: deletes it must refuse) and where it writes (a
 * link to a file of the user's own, followed by the tool itself or, for root, by the kernel). A missing
 * path is fine: the tool makes it, its own. Windows has no such owners: nothing is checked there.
 */
export async function refusePlanted(path: string): Promise<void> {
  const uid = process.getuid?.();
  const entry = uid === undefined ? undefined : await lstat(path).catch(() => undefined);
  if (entry === undefined) return;
  if (entry.uid !== uid && entry.uid !== 0) {
    const folder = await stat(dirname(path)).catch(() => undefined);
    if (folder !== undefined && (folder.mode & 0o002) !== 0) {
      throw new StateLockError(
        `${path} belongs to another user (uid ${entry.uid}) and lies in ${dirname(path)}, a directory anyone can write: it may have been put there to decide what this run reads or where it writes. Keep the tool's files in a directory of your own (--state-file, --backup-file, --out), or remove it if it is not yours`,
      );
    }
  }
  if (entry.isFile() && (entry.mode & 0o002) !== 0) {
    throw new StateLockError(
      `${path} can be written by anyone (mode ${(entry.mode & 0o777).toString(8)}): what it holds may not be what a run left there. If it is yours and unchanged, make it private (chmod 600 ${path})`,
    );
  }
}

/**
 * What a regular file at `path` holds, or undefined when it is missing, unreadable or not a regular file
 * (a FIFO is opened without blocking and never read: a read would wait for a writer for ever).
 */
export async function readRegularFile(path: string): Promise<string | undefined> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    return notRegular(await handle.stat()) === undefined ? await readFile(handle, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** `path` opened with `flags` ('a' appends, 'w' replaces), mode 0600 whether it is new or not. */
export async function openPrivateFile(path: string, flags: 'a' | 'w'): Promise<FileHandle> {
  await refusePlanted(path);
  // Not blocking (a FIFO without a reader fails at once instead of waiting for one) and not truncating
  // until the handle is known to be a regular file.
  const mode = constants.O_WRONLY | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);
  const handle = await open(path, flags === 'a' ? mode | constants.O_APPEND : mode, PRIVATE_MODE).catch(
    (error: NodeJS.ErrnoException) => {
      // ENXIO: a FIFO that no one reads (opened without blocking).
      if (error.code === 'ENXIO') throw new StateLockError(`${path} ${notRegularMessage('a FIFO')}`);
      throw error;
    },
  );
  try {
    const what = notRegular(await handle.stat());
    if (what !== undefined) throw new StateLockError(`${path} ${notRegularMessage(what)}`);
    await handle.chmod(PRIVATE_MODE);
    if (flags === 'w') await handle.truncate(0);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Where a write to `path` lands: the real path of the file, or, through a link to a file not yet
 * there, of the file the link names; refused when another user may have planted it or a link on the
 * way (refusePlanted). The state is written there (a rename onto a symlink would replace
 * the link, leaving its target, a volume say, without what the run remembered), and locked there, so
 * two spellings of one file (a link and its target) are one state.
 */
export async function whereItLands(path: string, hops = 0): Promise<string> {
  // Each link on the way is followed here, not by the kernel, so each is checked here.
  await refusePlanted(path);
  const link = await readlink(path).catch(() => undefined);
  if (link !== undefined && hops < 40) return whereItLands(resolve(dirname(path), link), hops + 1);
  try {
    return await realpath(path);
  } catch {
    // Absent, or a link to an absent file.
  }
  const parent = await realpath(dirname(path)).catch(() => resolve(dirname(path)));
  return join(parent, basename(path));
}
