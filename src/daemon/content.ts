import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { MANIFEST_FILE } from '../manifest/index.js';
import { readWholeFile } from '../model/index.js';

export interface Content {
  /** sha256 of the bytes, or a marker of why they could not be read (a missing file is a state too). */
  hash: string;
  /** Absent when the file could not be read. */
  bytes?: Uint8Array;
  /** Why the manifest is not read at all: what it is when it is no regular file ("a FIFO", model's notRegular). */
  notAFile?: string;
  /** Written whole before it could be seen: a file of a Kubernetes ConfigMap or Secret volume. */
  whole?: boolean;
  /** Larger than a manifest may be (MAX_MANIFEST_BYTES): not read further. Its size, when known. */
  tooLarge?: { size: number | undefined };
}

/**
 * The kubelet writes a ConfigMap's or Secret's files into a new directory named after the time
 * (`..2026_11_27_08_00_00.123456789`), then swaps the `..data` link to it, and never writes there
 * again: a file that really lies in such a directory was whole before anyone could read it.
 */
const KUBELET_VERSION = /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d+$/;

/**
 * One read of the manifest: the hash always names exactly the text returned with it. Only a regular
 * file is read: the daemon reads the manifest again on every change and every resync, and a pipe
 * (`-f <(sops -d websites.enc.yaml)`) gives its text to the first read only, then nothing (the daemon
 * said "the manifest is empty"); one whose writer has not started would block the read for ever.
 */
export async function readContent(file: string): Promise<Content> {
  try {
    // Where it really is, read there: a ConfigMap's swap after this cannot change what is read. (A
    // pipe has no such path: it is opened as named, and refused below.)
    const real = await realpath(file).catch(() => file);
    const whole = KUBELET_VERSION.test(basename(dirname(real)));
    // Without blocking: opening a pipe with no writer yet would wait for one.
    const handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      // A regular file only, by the one rule of files read whole (a directory is said as one).
      const read = await readWholeFile(handle, { ...MANIFEST_FILE, streams: false });
      if ('notRegular' in read) return { hash: `not-a-file:${read.notRegular}`, notAFile: read.notRegular };
      // Its size is its state: the file is read again at every change until it shrinks.
      if ('tooLarge' in read) {
        return { hash: `too-large:${(await handle.stat()).size}`, tooLarge: read.tooLarge };
      }
      const { bytes } = read;
      return { hash: createHash('sha256').update(bytes).digest('hex'), bytes, ...(whole ? { whole } : {}) };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { hash: `unreadable:${(error as NodeJS.ErrnoException).code ?? 'unknown'}` };
  }
}
