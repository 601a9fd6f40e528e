// How the manifest's bytes are read, by a run and by the daemon: whole, but never past a bound. A
// manifest named by mistake (a disk image, a log) or one that never ends (`-f /dev/zero`) was read until
// memory ran out; a daemon under a container's memory limit was killed for it.
import type { FileHandle } from 'node:fs/promises';
import { formatCount, type Problem } from '../model/index.js';

/**
 * The largest manifest read, in bytes: ten times one of 100,000 websites (about 6 MiB). A larger file
 * is refused without being read further.
 */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** Read a piece at a time: a pipe or a device says nothing of its size. */
const PIECE = 1024 * 1024;

/** The file's bytes, or `tooLarge` once more than `max` have been read (the rest is not). */
export type ManifestBytes = { bytes: Uint8Array } | { tooLarge: true };

/** Reads an open file to its end, or until it has given more than `max` bytes. */
export async function readBounded(handle: FileHandle, max = MAX_MANIFEST_BYTES): Promise<ManifestBytes> {
  const pieces: Buffer[] = [];
  let total = 0;
  for (;;) {
    const wanted = Math.min(PIECE, max + 1 - total);
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(wanted), 0, wanted, null);
    if (bytesRead === 0) break;
    pieces.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > max) return { tooLarge: true };
  }
  return { bytes: Buffer.concat(pieces, total) };
}

/** What a run and the daemon say of a manifest past the bound. */
export function tooLargeProblem(file: string, max = MAX_MANIFEST_BYTES): Problem {
  const mib = formatCount(max / 1024 / 1024);
  return {
    severity: 'error',
    file,
    line: 1,
    column: 1,
    field: '',
    message: `the manifest is larger than ${mib} MiB (one of 100,000 websites is about 6 MiB): is it the right file? It was not read further`,
  };
}
