// What a path the tool reads or writes must be (a regular file), and the one reader of the small files
// it takes whole from the operator: a key file, a file holding the state's URL. Such a path may be
// mistaken or hostile: a FIFO nobody writes would block the read for ever (a daemon never ready,
// `--once` never ending), a device (/dev/zero) or a file of gigabytes would be read until memory ran
// out. So the path is opened without blocking, refused unless it is a regular file, and read no
// further than a bound that fits what it must hold.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';

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

/** How one small file is read, and named in its messages. */
export interface SmallFileSpec {
  /** What named the file: the option as typed (`--api-key-file`) or its variable. */
  source: string;
  /** The most bytes taken: a larger file is refused, and never read past this. */
  maxBytes: number;
  /** What the file must hold, for the messages: "an API key (one line, at most 4096 characters)". */
  holds: string;
  /**
   * The variable that takes the same value from a command, said when the path is a pipe (`<(pass
   * show key)`, `/dev/stdin` from a pipe): WEBSITES_SYNC_API_KEY.
   */
  variable?: string;
}

/** The file's text (UTF-8), or why it was not read: a sentence naming the source and the path. */
export type SmallFileRead = { text: string } | { problem: string };

/**
 * A small file read whole, bounded: at most `maxBytes` (one byte more is read to see that there is
 * more), from a regular file only. Synchronous: the read is of a few kilobytes from a regular file
 * (anything else is refused before a byte is read), and the CLI checks its settings synchronously. The
 * messages never show what the file holds: it is a secret.
 */
export function readSmallFile(path: string, spec: SmallFileSpec): SmallFileRead {
  let fd: number;
  try {
    // Without blocking: opening a FIFO with no writer would wait for one.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    // A socket cannot be opened at all (ENXIO): said as what it is, as a FIFO is.
    const what = (error as NodeJS.ErrnoException).code === 'ENXIO' ? kindOf(path) : undefined;
    return {
      problem: what === undefined ? cannotRead(path, spec.source, error) : notAFile(path, what, spec),
    };
  }
  try {
    return readOpened(fd, path, spec);
  } catch (error) {
    return { problem: cannotRead(path, spec.source, error) };
  } finally {
    closeSync(fd);
  }
}

function readOpened(fd: number, path: string, spec: SmallFileSpec): SmallFileRead {
  const { source, maxBytes, holds } = spec;
  const info = fstatSync(fd);
  const what = notRegular(info);
  if (what !== undefined) return { problem: notAFile(path, what, spec) };
  const tooLarge = (size: string) => ({
    problem: `${source}: ${path} holds ${size} bytes; at most ${maxBytes} are allowed for ${holds} (is it the right file?)`,
  });
  if (info.size > maxBytes) return tooLarge(String(info.size));
  // The size said is not trusted: a file may grow while it is read, and some (in /proc) say 0.
  const buffer = Buffer.alloc(maxBytes + 1);
  let length = 0;
  while (length < buffer.length) {
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  if (length > maxBytes) return tooLarge(`more than ${maxBytes}`);
  return { text: buffer.subarray(0, length).toString('utf8') };
}

function notAFile(path: string, what: string, spec: SmallFileSpec): string {
  const refused = `${spec.source}: ${path} ${notRegularMessage(what)}; give a regular file holding ${spec.holds}`;
  if (what !== 'a FIFO' || spec.variable === undefined) return refused;
  // A pipe gives its text once and may never end; a command's output has a way in that does neither.
  return `${refused}, or set ${spec.variable}="$(command)" to take it from a command`;
}

function kindOf(path: string): string | undefined {
  try {
    return notRegular(statSync(path));
  } catch {
    return undefined;
  }
}

/** "`--api-key-file`: cannot read PATH (ENOENT)": the error's code, never what the file holds. */
export function cannotRead(path: string, source: string, error: unknown): string {
  return `${source}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
}
