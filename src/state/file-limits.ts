import type { WholeFileSpec } from '../model/index.js';

// How big each file of the state may be when it is read whole (model's readWholeFile): a path named by
// mistake, a link to /dev/zero or a sparse file of gigabytes is refused, not read until memory runs out.
// Each bound leaves ample room over what 100,000 websites make (measured with the simulator); V8's
// longest string (512 MiB) is the ceiling of any of them.

const MiB = 1024 * 1024;

/** The state file: fingerprints, protections and pending deletes, per account. */
export const STATE_FILE: WholeFileSpec = {
  holds: 'a state file',
  maxBytes: 256 * MiB,
  room: 'one of 100,000 websites is about 25 MiB',
};

/** The backup file: one line per deleted website, its settings; it grows with every delete. */
export const BACKUP_FILE: WholeFileSpec = {
  holds: 'a backup file',
  maxBytes: 256 * MiB,
  room: 'one of 100,000 deleted websites is about 27 MiB',
};

/** What the webhook took last, per kind: a few hashes. */
export const NOTIFIED_FILE: WholeFileSpec = { holds: 'the record of notifications sent', maxBytes: MiB };
