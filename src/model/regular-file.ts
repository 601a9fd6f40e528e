// The one reader of the small files the tool takes whole from the operator: a key file, a file holding
// the state's URL. Such a path may be mistaken or hostile: a FIFO nobody writes would block the read for
// ever (a daemon never ready, `--once` never ending), a device (/dev/zero) or a file of gigabytes would
// be read until memory ran out. So the path is opened without blocking and read by the one rule of
// files read whole (whole-file.ts): a regular file only, no further than a bound that fits what it holds.
import { closeSync, constants, openSync, statSync } from 'node:fs';
import { notRegular, notRegularRefusal, readWholeFileSync, tooLargeMessage } from './whole-file.js';

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
 * A small file read whole, bounded: at most `maxBytes`, from a regular file only. Synchronous: the read
 * is of a few kilobytes from a regular file (anything else is refused before a byte is read), and the
 * CLI checks its settings synchronously. The messages never show what the file holds: it is a secret.
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
    const read = readWholeFileSync(fd, spec);
    if ('notRegular' in read) return { problem: notAFile(path, read.notRegular, spec) };
    if ('tooLarge' in read)
      return { problem: tooLargeMessage(`${spec.source}: ${path}`, spec, read.tooLarge.size) };
    return { text: read.bytes.toString('utf8') };
  } catch (error) {
    return { problem: cannotRead(path, spec.source, error) };
  } finally {
    closeSync(fd);
  }
}

function notAFile(path: string, what: string, spec: SmallFileSpec): string {
  const refused = notRegularRefusal(`${spec.source}: ${path}`, what, spec);
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
