import { writePrivateFileAtomically } from './file.js';
import { NOTIFIED_FILE } from './file-limits.js';
import { readRegularFile, refusePlanted } from './private-file.js';

// What the webhook took last, per kind (hashes only, no event's content), kept between invocations of
// `--once` by the state's store: in a small file beside a state file, in the `notified` table of a
// PostgreSQL schema. A cron job that meets the same situation run after run tells it once.

/** Per kind, the hash of the last event the webhook took. */
export type Notified = Record<string, string>;

/** The file beside the state file. */
export function sentPathFor(statePath: string): string {
  return `${statePath}.notified`;
}

/** A kept record as the notifier reads it: its string values; nothing when it is not an object. */
export function notifiedOf(data: unknown): Notified {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  return Object.fromEntries(
    Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** What the runs before delivered; nothing when the file is missing or not ours. */
export async function readNotifiedFile(path: string): Promise<Notified> {
  // Refused like the state when another user may have made it (refusePlanted); a FIFO is not read.
  await refusePlanted(path);
  const text = await readRegularFile(path, NOTIFIED_FILE);
  if (text === undefined) return {};
  try {
    return notifiedOf(JSON.parse(text));
  } catch {
    return {};
  }
}

/** Written as the state is (atomically, 0600). */
export function writeNotifiedFile(path: string, sent: Notified): Promise<void> {
  return writePrivateFileAtomically(
    path,
    `${JSON.stringify(sent)}\n`,
    'cannot record the notifications sent',
  );
}
