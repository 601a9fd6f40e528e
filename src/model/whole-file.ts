// The one rule for a local file the tool reads whole (a manifest, the state, a saved plan, a seed, a
// key file): a regular file only, and never more than a bound that fits what it must hold. A path named
// by mistake (a disk image, a log), a link to /dev/zero or a sparse file of terabytes was read until
// memory ran out or for ever; a FIFO nobody writes blocks the read. So what is opened is looked at
// first (its kind, the size it says), and read a piece at a time to one byte past the bound: the size
// said is not trusted, a file may grow while it is read, and some (in /proc) say 0.
import { fstatSync, readSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { formatCount } from './count.js';

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

/** How one file read whole is bounded, and named in its messages. */
export interface WholeFileSpec {
  /** What the file must hold, for the messages: "a saved plan", "an API key (one line)". */
  holds: string;
  /** The most bytes taken: a larger file is refused, and never read past this. */
  maxBytes: number;
  /** What the bound leaves room for, said beside it: "one of 100,000 websites is about 6 MiB". */
  room?: string;
  /**
   * Read a pipe or a device too, bounded all the same (a one-shot manifest from `-f <(sops -d …)`).
   * Otherwise only a regular file is read.
   */
  streams?: boolean;
}

/**
 * The file's bytes, or why they were not taken: what it is when it is not a regular file ("a FIFO"),
 * or its size when it is larger than the bound (undefined: more than the bound, how much is not known).
 */
export type WholeRead =
  | { bytes: Buffer }
  | { notRegular: string }
  | { tooLarge: { size: number | undefined } };

/** The first buffer of a file that says nothing of its size (a pipe, a device, a file in /proc). */
const PIECE = 1024 * 1024;

/** The open file read whole, as the rule says (readWholeFileSync for a synchronous read). */
export async function readWholeFile(handle: FileHandle, spec: WholeFileSpec): Promise<WholeRead> {
  const reads = reading(await handle.stat(), spec);
  let step = reads.next();
  while (!step.done) step = reads.next((await handle.read(...step.value, null)).bytesRead);
  return step.value;
}

/** readWholeFile on a file descriptor, synchronously: for the few files the CLI checks with its settings. */
export function readWholeFileSync(fd: number, spec: WholeFileSpec): WholeRead {
  const reads = reading(fstatSync(fd), spec);
  let step = reads.next();
  while (!step.done) step = reads.next(readSync(fd, ...step.value, null));
  return step.value;
}

/** Where a read goes (buffer, offset, length), and the bytes it read (0: the end of the file). */
type ReadInto = [Buffer, number, number];

/**
 * The rule's one loop, for both reads: it asks for each read (yields where it goes) and is told how
 * many bytes came. The bytes go into one buffer of the size the file says, and one byte more to see it
 * end: a large state is held once, not as pieces and then their copy. A file that says less than it
 * holds (a pipe, /proc, one growing as it is read) grows it, to the bound and one byte past it at most.
 */
function* reading(info: Stats, spec: WholeFileSpec): Generator<ReadInto, WholeRead, number> {
  const judged = judge(info, spec);
  if (judged !== undefined) return judged;
  let buffer = Buffer.allocUnsafe(
    Math.min(spec.maxBytes + 1, info.isFile() && info.size > 0 ? info.size + 1 : PIECE),
  );
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > spec.maxBytes) return { tooLarge: { size: undefined } };
      const next = Buffer.allocUnsafe(Math.min(spec.maxBytes + 1, buffer.length * 2));
      buffer.copy(next);
      buffer = next;
    }
    const read: number = yield [buffer, total, buffer.length - total];
    if (read === 0) return { bytes: buffer.subarray(0, total) };
    total += read;
  }
}

/** Refused before a byte is read: not a regular file, or one that says it is larger than the bound. */
function judge(info: Stats, spec: WholeFileSpec): WholeRead | undefined {
  const what = notRegular(info);
  if (what !== undefined && !spec.streams) return { notRegular: what };
  if (info.isFile() && info.size > spec.maxBytes) return { tooLarge: { size: info.size } };
  return undefined;
}

/**
 * "PATH holds 3,221,225,472 bytes; at most 268,435,456 (256 MiB) are allowed for a saved plan (…): is
 * it the right file? It was not read further": what a file past its bound is told as. `subject` names
 * the file ("--plan: plan.json", "the file").
 */
export function tooLargeMessage(subject: string, spec: WholeFileSpec, size: number | undefined): string {
  const held = size === undefined ? `more than ${formatCount(spec.maxBytes)}` : formatCount(size);
  const room = spec.room === undefined ? '' : ` (${spec.room})`;
  return `${subject} holds ${held} bytes; at most ${formatBytes(spec.maxBytes)} are allowed for ${spec.holds}${room}: is it the right file? It was not read further`;
}

/** "PATH is a FIFO, not a regular file; give a regular file holding a saved plan". */
export function notRegularRefusal(subject: string, what: string, spec: WholeFileSpec): string {
  return `${subject} ${notRegularMessage(what)}; give a regular file holding ${spec.holds}`;
}

/** The refusal of a read that was refused (a WholeRead without bytes), said of `subject`. */
export function wholeReadRefusal(
  subject: string,
  read: Exclude<WholeRead, { bytes: Buffer }>,
  spec: WholeFileSpec,
): string {
  return 'notRegular' in read
    ? notRegularRefusal(subject, read.notRegular, spec)
    : tooLargeMessage(subject, spec, read.tooLarge.size);
}

/** "8,192", or "67,108,864 (64 MiB)" from a mebibyte up. */
function formatBytes(bytes: number): string {
  const mib = bytes / 1024 / 1024;
  if (mib < 1) return formatCount(bytes);
  return `${formatCount(bytes)} (${Number.isInteger(mib) ? formatCount(mib) : mib.toFixed(1)} MiB)`;
}
