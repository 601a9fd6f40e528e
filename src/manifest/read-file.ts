// How big a manifest may be, by a run and by the daemon. It is read whole, by the one rule of files
// read whole (model's readWholeFile): a manifest named by mistake (a disk image, a log) or one that never
// ends (`-f /dev/zero`) was read until memory ran out; a daemon under a container's memory limit was
// killed for it.
import { type Problem, tooLargeMessage, type WholeFileSpec } from '../model/index.js';

/**
 * The largest manifest read, in bytes: ten times one of 100,000 websites (about 6 MiB). A larger file
 * is refused without being read further.
 */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/**
 * A manifest as a run reads it: a pipe too (`--once -f <(sops -d …)` gives its text through one), read
 * no further than the bound. The daemon reads a regular file only (`streams: false`): it reads the
 * manifest again on every change, which a pipe cannot give.
 */
export const MANIFEST_FILE: WholeFileSpec = {
  holds: 'a manifest',
  maxBytes: MAX_MANIFEST_BYTES,
  room: 'one of 100,000 websites is about 6 MiB',
  streams: true,
};

/** What a run and the daemon say of a manifest past the bound (`size`: as read, when known). */
export function tooLargeProblem(file: string, size: number | undefined): Problem {
  return {
    severity: 'error',
    file,
    line: 1,
    column: 1,
    field: '',
    message: tooLargeMessage('the file', MANIFEST_FILE, size),
  };
}
