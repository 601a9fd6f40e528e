import { readFile } from 'node:fs/promises';
import { writePrivateFileAtomically } from '../state/index.js';

// What `--once` delivered last (the webhook answered 2xx), kept between invocations in a small file
// beside the state (hashes only, no event's content), so a cron job that meets the same situation run
// after run tells it once.

/** The file beside the state file. */
export function sentPathFor(statePath: string): string {
  return `${statePath}.notified`;
}

/** What the runs before delivered, per topic; nothing when the file is missing or not ours. */
export async function readSent(path: string): Promise<Record<string, string>> {
  try {
    const data: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
    return Object.fromEntries(
      Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}

/** Written as the state is (atomically, 0600); a failure only means the next run may tell again. */
export function writeSent(path: string, sent: Record<string, string>): Promise<void> {
  return writePrivateFileAtomically(
    path,
    `${JSON.stringify(sent)}\n`,
    'cannot record the notifications sent',
  );
}
