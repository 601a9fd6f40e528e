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
 * Refuses a path another user may have laid for the tool: one with an entry (a file, a directory or a
 * symbolic link), as the path is written, as it really is, or where its links lead (each followed in
 * turn, as whereItLands does), that is neither the running user's nor root's in a directory anyone can
 * write (/tmp, where anyone can make a name first, such as the `/tmp/acct` an operator then makes with
 * `mkdir -p`). What lies there decides what a run knows (a state without its protections: deletes it
 * must refuse) and where it writes (a link to a file of the user's own). A missing path is fine: the
 * tool makes it, its own. A directory a group can write (a team's) is trusted; Windows has no such
 * owners, and nothing is checked there.
 */
export async function refusePlanted(path: string): Promise<void> {
  await landing(path, true);
}

/** refusePlanted for the entries of `path` itself, as written and as it really is; a last link not followed. */
async function refuseEntriesPlanted(path: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const given = resolve(path);
  const real = await realpath(dirname(given)).then(
    (folder) => join(folder, basename(given)),
    () => undefined,
  );
  for (const way of real === undefined || real === given ? [given] : [given, real]) {
    for (let entry = way; dirname(entry) !== entry; entry = dirname(entry)) {
      const found = await lstat(entry).catch(() => undefined);
      if (found === undefined || !(await plantedIn(found.uid, entry, uid))) continue;
      throw planted(entry === way ? path : `${entry}, on the way to ${path},`, found.uid, dirname(entry));
    }
  }
}

/**
 * refusePlanted again for the file as opened (`info`, its fstat): another user may have made the name
 * between that check and the open.
 */
export async function refuseOpenedPlanted(info: Stats, path: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid !== undefined && (await plantedIn(info.uid, path, uid))) {
    throw planted(path, info.uid, dirname(path));
  }
}

/**
 * Whether `entry`, owned by `owner`, is another user's (neither `uid`'s nor root's) in a directory anyone
 * can write.
 */
async function plantedIn(owner: number, entry: string, uid: number): Promise<boolean> {
  if (owner === uid || owner === 0) return false;
  const folder = await stat(dirname(entry)).catch(() => undefined);
  return folder !== undefined && (folder.mode & 0o002) !== 0;
}

function planted(what: string, owner: number, folder: string): StateLockError {
  return new StateLockError(
    `${what} belongs to another user (uid ${owner}) and lies in ${folder}, a directory anyone can write: it may have been put there to decide what this run reads or where it writes. Keep the tool's files in a directory of your own, or remove it if it is not yours`,
  );
}

/**
 * `path` opened for reading without blocking: a FIFO put there opens at once (and reads as nothing)
 * instead of waiting for a writer for ever. Opening, not only stat-ing, also makes an NFS client fetch
 * the file's current attributes and contents.
 */
export function openWithoutBlocking(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
}

/**
 * What a regular file at `path` holds, or undefined when it is missing, unreadable or not a regular file
 * (a FIFO is opened without blocking and never read: a read would wait for a writer for ever).
 */
export async function readRegularFile(path: string): Promise<string | undefined> {
  const handle = await openWithoutBlocking(path).catch(() => undefined);
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
export function openPrivateFile(path: string, flags: 'a' | 'w'): Promise<FileHandle> {
  return openForWriting(path, flags, { private: true });
}

/** How often the file may change between its check and its open before the write gives up. */
const OPEN_ATTEMPTS = 3;

/**
 * `path` opened for writing: 'a' appends, 'w' replaces, 'wx' makes a new file and fails with EEXIST
 * when there is one. Every file the tool writes at a path the operator gave (the state, a backup, a
 * saved plan, an exported manifest and its schema) is opened here. Private files are 0600 whether new
 * or not.
 *
 * What is opened is the file the path really lands on, each link on the way checked as it is
 * followed (whereItLands: refusePlanted), and it must be a regular file. Between that check and the
 * open, another user may change a name in a directory anyone can write; the open itself never follows
 * a link: a missing file is created (O_EXCL), an existing one opened only if it is still the file
 * checked (O_NOFOLLOW, the same device and inode) and still not another user's. Otherwise the path is
 * checked again, up to OPEN_ATTEMPTS times.
 */
export async function openForWriting(
  path: string,
  flags: 'a' | 'w' | 'wx',
  { private: ownerOnly }: { private: boolean },
): Promise<FileHandle> {
  // Not blocking (a FIFO without a reader fails at once instead of waiting for one) and not truncating
  // until the handle is known to be a regular file.
  const writing = constants.O_WRONLY | (constants.O_NONBLOCK ?? 0) | (flags === 'a' ? constants.O_APPEND : 0);
  for (let attempt = 1; attempt <= OPEN_ATTEMPTS; attempt++) {
    const target = await whereItLands(path);
    const checked = await lstat(target).catch(() => undefined);
    const make = checked === undefined || flags === 'wx';
    let handle: FileHandle;
    try {
      handle = await open(
        target,
        make ? writing | constants.O_CREAT | constants.O_EXCL : writing | (constants.O_NOFOLLOW ?? 0),
        ownerOnly ? PRIVATE_MODE : 0o666,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Made (EEXIST), replaced by a link (ELOOP) or removed (ENOENT) since it was checked.
      if (make ? code === 'EEXIST' && flags !== 'wx' : code === 'ELOOP' || code === 'ENOENT') continue;
      // ENXIO: a FIFO that no one reads (opened without blocking).
      if (code === 'ENXIO') throw new StateLockError(`${path} ${notRegularMessage('a FIFO')}`);
      throw error;
    }
    try {
      const info = await handle.stat();
      if (checked !== undefined && (info.dev !== checked.dev || info.ino !== checked.ino)) {
        await handle.close();
        continue;
      }
      const what = notRegular(info);
      if (what !== undefined) throw new StateLockError(`${path} ${notRegularMessage(what)}`);
      await refuseOpenedPlanted(info, target);
      if (ownerOnly) await handle.chmod(PRIVATE_MODE);
      if (flags === 'w') await handle.truncate(0);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  }
  throw new StateLockError(
    `${path} was made, removed or replaced by another process each of the ${OPEN_ATTEMPTS} times it was opened; nothing was written to it. Keep the tool's files where no other process changes them`,
  );
}

/**
 * Where a write to `path` lands: the real path of the file, or, through a link to a file not yet
 * there, of the file the link names; refused when another user may have planted it or a link on the
 * way (refusePlanted). The state is written there (a rename onto a symlink would replace
 * the link, leaving its target, a volume say, without what the run remembered), and locked there, so
 * two spellings of one file (a link and its target) are one state.
 */
export async function whereItLands(path: string): Promise<string> {
  return landing(path, true);
}

/** Where `path` lands, as whereItLands says, without refusing anything: to compare two paths. */
export function landingOf(path: string): Promise<string> {
  return landing(path, false);
}

async function landing(path: string, checked: boolean, hops = 0): Promise<string> {
  // Each link is followed here, one at a time, so each is checked here (refusePlanted), and relative to
  // the directory it really lies in (`..` in a link reached through a linked directory).
  if (checked) await refuseEntriesPlanted(path);
  const link = await readlink(path).catch(() => undefined);
  if (link !== undefined && hops < 40) {
    const folder = await realpath(dirname(path)).catch(() => dirname(path));
    return landing(resolve(folder, link), checked, hops + 1);
  }
  try {
    return await realpath(path);
  } catch {
    // Absent, or a link to an absent file.
  }
  const parent = await realpath(dirname(path)).catch(() => resolve(dirname(path)));
  return join(parent, basename(path));
}
