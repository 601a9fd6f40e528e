import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, parse, resolve, sep } from 'node:path';
import {
  notRegular,
  notRegularMessage,
  readWholeFile,
  type WholeFileSpec,
  wholeReadRefusal,
} from '../model/index.js';
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
 * Whether the file open at `info` (its fstat) is the one `path` leads to now, the path walked and
 * checked again (landing): between the walk that found it and the open, another user may have put a
 * link or a directory of theirs in a directory anyone can write on the way, or replaced the file. The
 * check, the open and the check again agree, or nothing is used.
 */
async function heldAt(info: Stats, path: string): Promise<boolean> {
  const landed = await landsNow(path);
  const now = landed === undefined ? undefined : await lstat(landed).catch(() => undefined);
  return now !== undefined && now.dev === info.dev && now.ino === info.ino;
}

/** Where `path` lands (landing, checked), or undefined when a name changed during the walk. */
async function landsNow(path: string): Promise<string | undefined> {
  try {
    return await landing(path, true);
  } catch (error) {
    if (error instanceof PathChanged) return undefined;
    throw error;
  }
}

/** Whether the entry at `entry` (its lstat) is another user's in a directory anyone can write. */
export async function plantedHere(info: Stats, entry: string): Promise<boolean> {
  const uid = process.getuid?.();
  return uid !== undefined && (await plantedIn(info.uid, entry, uid));
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

/** How often a file may change between its check and its open before the tool gives up on it. */
const OPEN_ATTEMPTS = 3;

/**
 * `path` opened for reading, where it lands (landing: each name on the way checked), the open held to
 * it (heldAt), as openForWriting does. Without blocking: a FIFO put there opens at once (and reads as
 * nothing) instead of waiting for a writer for ever; the caller looks at what it opened. Opening, not
 * only stat-ing, also makes an NFS client fetch the file's current attributes and contents. A missing
 * file fails with ENOENT.
 */
export async function openForReading(path: string): Promise<FileHandle> {
  const reading = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
  for (let attempt = 1; attempt <= OPEN_ATTEMPTS; attempt++) {
    const target = await landsNow(path);
    if (target === undefined) continue;
    let handle: FileHandle;
    try {
      handle = await open(target, reading);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') continue; // a link since the walk
      throw error;
    }
    try {
      if (await heldAt(await handle.stat(), path)) return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
    await handle.close();
  }
  throw keptChanging(path, 'read from');
}

/**
 * The text of the file at `path`, opened by openForReading and read by the one rule of files read whole
 * (a regular file, no larger than `spec` allows); its errors (ENOENT, a refusal) thrown, a file that is
 * not a regular one or too large as a StateLockError.
 */
export async function readChecked(path: string, spec: WholeFileSpec): Promise<string> {
  const handle = await openForReading(path);
  try {
    const read = await readWholeFile(handle, spec);
    if ('bytes' in read) return read.bytes.toString('utf8');
    throw new StateLockError(wholeReadRefusal(path, read, spec));
  } finally {
    await handle.close();
  }
}

/**
 * What a regular file at `path` holds, or undefined when it is missing, unreadable or not a regular
 * file (a FIFO is never read: a read would wait for a writer for ever). A refusal of openForReading
 * (StateLockError), and a file larger than `spec` allows, are thrown: they say more than "no file".
 */
export async function readRegularText(path: string, spec: WholeFileSpec): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await openForReading(path);
  } catch (error) {
    if (error instanceof StateLockError) throw error;
    return undefined;
  }
  let read: Awaited<ReturnType<typeof readWholeFile>>;
  try {
    read = await readWholeFile(handle, spec);
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
  if ('tooLarge' in read) throw new StateLockError(wholeReadRefusal(path, read, spec));
  return 'bytes' in read ? read.bytes.toString('utf8') : undefined;
}

/** readRegularText, a refusal included in "undefined": for what the tool can do without. */
export function readRegularFile(path: string, spec: WholeFileSpec): Promise<string | undefined> {
  return readRegularText(path, spec).catch(() => undefined);
}

/** `path` opened with `flags` ('a' appends, 'w' replaces), mode 0600 whether it is new or not. */
export function openPrivateFile(path: string, flags: 'a' | 'w'): Promise<FileHandle> {
  return openForWriting(path, flags, { private: true });
}

/**
 * `path` opened for writing: 'a' appends, 'w' replaces, 'wx' makes a new file and fails with EEXIST
 * when there is one. Every file the tool writes at a path the operator gave (the state, a backup, a
 * saved plan, an exported manifest and its schema) is opened here. Private files are 0600 whether new
 * or not.
 *
 * What is opened is the file the path really lands on, each link on the way checked as it is
 * followed (landing), and it must be a regular file. Between that check and the open, another user
 * may change a name in a directory anyone can write, so the open itself follows no link (a missing
 * file is created, O_EXCL; an existing one opened with O_NOFOLLOW), and after it the path is walked
 * and checked again and must lead to the opened file (heldAt). Otherwise it is tried again, up to
 * OPEN_ATTEMPTS times; nothing is truncated or written before.
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
    const target = await landsNow(path);
    if (target === undefined) continue;
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
      if (!(await heldAt(info, path))) {
        await handle.close();
        continue;
      }
      const what = notRegular(info);
      if (what !== undefined) throw new StateLockError(`${path} ${notRegularMessage(what)}`);
      if (ownerOnly) await handle.chmod(PRIVATE_MODE);
      if (flags === 'w') await handle.truncate(0);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  }
  throw keptChanging(path, 'written to');
}

function keptChanging(path: string, use: 'read from' | 'written to'): PathChanged {
  return new PathChanged(
    `${path} was made, removed or replaced by another process each of the ${OPEN_ATTEMPTS} times it was opened; nothing was ${use} it. Keep the tool's files where no other process changes them`,
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

/**
 * A name on a path changed while the tool was looking at it (a link replaced while read, a file not
 * the one the path leads to after the open): looking again may find it settled.
 */
export class PathChanged extends StateLockError {}

/**
 * `name` in the directory `path` lies in, as the path says it, not shortened as text: `dirname` of
 * `current/../shared/state.json` is `current/../shared`, which the walk (landing) reads as the kernel
 * does, where `join` would make it `shared`.
 */
export function beside(path: string, name: string): string {
  const folder = dirname(path);
  if (folder === '.') return name;
  return folder.endsWith(sep) ? `${folder}${name}` : `${folder}${sep}${name}`;
}

/** As the kernel follows links on a path (Linux's MAXSYMLINKS): more is a loop. */
const MAX_LINKS = 40;

/**
 * Where `path` lands, resolved as the kernel would, one name at a time from the root, so that each
 * entry on the way is seen, and, when `checked`, refused when another user may have planted it
 * (plantedIn): a directory or a link as written, each link's target in turn, and the file. A link is
 * read between two lstat calls that must agree (its device, inode and owner), so what it says is what
 * was checked: a link's text cannot change, only the link be replaced. A missing entry ends the walk:
 * the rest is what the tool makes. The result has no link in it, as the walk saw it; the opens hold
 * themselves to that (heldAt).
 */
async function landing(path: string, checked: boolean): Promise<string> {
  const uid = checked ? process.getuid?.() : undefined;
  // Not resolve(path): `link/..` is the parent of where the link leads, as for the kernel, not `.`.
  // Windows shortens `..` as text itself, and has paths relative to a drive (`C:state.json`).
  const given = isAbsolute(path) ? path : sep === '\\' ? resolve(path) : `${process.cwd()}${sep}${path}`;
  let { root } = parse(given);
  let ahead = namesOf(given.slice(root.length));
  let here = root;
  let links = 0;
  const named = (entry: string) => (entry === resolve(path) ? path : `${entry}, on the way to ${path},`);
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
    // Gone or no longer a link by the read, or replaced: the same link, or another of the same owner's,
    // must be there after it (another user's replacement, even one given the freed inode, is theirs).
    const text = await readlink(entry).catch(() => undefined);
    const again = await lstat(entry).catch(() => undefined);
    if (
      text === undefined ||
      again?.ino !== found.ino ||
      again.dev !== found.dev ||
      again.uid !== found.uid
    ) {
      throw new PathChanged(`${named(entry)} was replaced while it was read; try again`);
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
