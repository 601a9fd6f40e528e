import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readFile, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, parse, resolve, sep } from 'node:path';
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
 * Whether the open file is the one at `path`, as the kernel tells (Linux: /proc/self/fd): a directory
 * on the way that another user replaced by a link after the walk (landing) would have led the open
 * elsewhere. True where the kernel does not tell.
 */
export async function openedAt(handle: FileHandle, path: string): Promise<boolean> {
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  return opened === undefined || opened === path;
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
      const moved = checked !== undefined && (info.dev !== checked.dev || info.ino !== checked.ino);
      if (moved || !(await openedAt(handle, target))) {
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

/** As the kernel follows links on a path (Linux's MAXSYMLINKS): more is a loop. */
const MAX_LINKS = 40;

/**
 * Where `path` lands, resolved as the kernel would, one name at a time from the root, so that each
 * entry on the way is seen, and, when `checked`, refused when another user may have planted it
 * (plantedIn): a directory or a link as written, each link's target in turn, and the file. A link is
 * read between two lstat calls that must agree (its device, inode and owner), so what it says is what
 * was checked: a link's text cannot change, only the link be replaced. A missing entry ends the walk: the rest is what the tool makes.
 * The result has no link in it, as the walk saw it; openForWriting holds the open to that.
 */
async function landing(path: string, checked: boolean): Promise<string> {
  const uid = checked ? process.getuid?.() : undefined;
  const given = resolve(path);
  let { root } = parse(given);
  let ahead = namesOf(given.slice(root.length));
  let here = root;
  let links = 0;
  const named = (entry: string) => (entry === given ? path : `${entry}, on the way to ${path},`);
  for (let name = ahead.shift(); name !== undefined; name = ahead.shift()) {
    if (name === '.') continue;
    if (name === '..') {
      here = dirname(here); // `here` has no link in it: `..` is its parent
      continue;
    }
    const entry = join(here, name);
    const found = await lstat(entry).catch(() => undefined);
    if (found === undefined) return join(entry, ...ahead);
    if (uid !== undefined && (await plantedIn(found.uid, entry, uid))) {
      throw planted(named(entry), found.uid, here);
    }
    if (!found.isSymbolicLink()) {
      here = entry;
      continue;
    }
    if (++links > MAX_LINKS) {
      throw new StateLockError(`${path}: more than ${MAX_LINKS} symbolic links on the way (a loop?)`);
    }
    const text = await readlink(entry);
    const again = await lstat(entry).catch(() => undefined);
    // The same link, or another of the same owner's: another user's replacement, even one given the
    // freed inode number, is theirs.
    if (again?.ino !== found.ino || again.dev !== found.dev || again.uid !== found.uid) {
      throw new StateLockError(`${named(entry)} was replaced while it was read; try again`);
    }
    // Relative to the directory the link lies in, as it really is (`here`).
    if (isAbsolute(text)) {
      root = parse(text).root;
      here = root;
      ahead = [...namesOf(text.slice(root.length)), ...ahead];
    } else {
      ahead = [...namesOf(text), ...ahead];
    }
  }
  return here;
}

/** The names in `path`, in order (on Windows, either slash separates them). */
function namesOf(path: string): string[] {
  return path.split(sep === '\\' ? /[\\/]/ : '/').filter((name) => name !== '');
}
