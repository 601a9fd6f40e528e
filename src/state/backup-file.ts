// Deleting a website deletes its statistics for good; its settings at least can be put back. Before
// each delete, the website as last read is appended to a JSON-lines file: one line per delete, written
// in a single append (atomic for a line of this size) and synced, mode 0600. If the line cannot be
// written, the delete is not sent.
import { type RemoteWebsite, shownJson, type WebsiteId } from '../model/index.js';
import { BACKUP_FILE } from './file-limits.js';
import { beside, openPrivateFile, readChecked, refuseNotRegular, refusePlanted } from './private-file.js';

export const DEFAULT_BACKUP_NAME = '.websites-sync-deleted.jsonl';

export interface BackupEntry {
  deleted_at: string;
  base_url: string;
  id: WebsiteId;
  domain: string;
  privacy: number | null | 'unknown';
  email: boolean | null | 'unknown';
  exclude_bots: boolean | null | 'unknown';
  exclude_ips: string[] | 'unknown';
  /** Never returned by the service: what was set cannot be known. */
  exclude_params: 'unknown';
  /** Whether a password was set; the password itself is never known, never written. */
  password_set: boolean | 'unknown';
}

/** `.websites-sync-deleted.jsonl` beside the state file, unless one was named. */
export function backupPathFor(statePath: string, backupFile: string | undefined): string {
  return backupFile ?? beside(statePath, DEFAULT_BACKUP_NAME);
}

/**
 * Before anything is sent: the backup file, when it exists, must be a regular file. A FIFO would block
 * the first delete's backup, a device (/dev/null) would swallow it: the settings would be lost. Nor
 * may another user have put it there (refusePlanted): they could read or empty it.
 */
export async function checkBackupPath(statePath: string, backupFile: string | undefined): Promise<void> {
  const path = backupPathFor(statePath, backupFile);
  await refusePlanted(path);
  return refuseNotRegular(path, (problem) =>
    backupFile === undefined
      ? `the backup file ${path} (beside the state file) ${problem}; set --backup-file (WEBSITES_SYNC_BACKUP_FILE) to a regular file`
      : `the backup file ${path} ${problem}; point --backup-file (WEBSITES_SYNC_BACKUP_FILE) at a regular file`,
  );
}

export function backupEntryOf(record: RemoteWebsite, baseUrl: string, now: Date): BackupEntry {
  const known = <T>(value: T | undefined): T | 'unknown' => (value === undefined ? 'unknown' : value);
  return {
    deleted_at: now.toISOString(),
    base_url: baseUrl,
    id: record.id,
    domain: record.domain,
    privacy: known(record.privacy),
    email: known(record.email),
    exclude_bots: known(record.exclude_bots),
    exclude_ips: known(record.exclude_ips),
    exclude_params: 'unknown',
    password_set: known(record.hasPassword),
  };
}

export async function appendBackup(path: string, entry: BackupEntry): Promise<void> {
  // 0600 also for a file that existed with another mode: it lists the account's settings.
  const handle = await openPrivateFile(path, 'a');
  try {
    // Read by people too (`tail` in an incident): exact values, no character a terminal interprets.
    await handle.write(`${shownJson(JSON.stringify(entry))}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Every backup line that parses, oldest first; a missing file is none. */
/** The backups in the file, and the lines (1-based) that are not one: cut short, or not ours. */
export interface ReadBackups {
  entries: BackupEntry[];
  unreadable: number[];
  /** No backup file at all (nothing deleted yet, or it is elsewhere). */
  missing?: boolean;
}

export async function readBackups(path: string): Promise<ReadBackups> {
  let text: string;
  try {
    text = await readChecked(path, BACKUP_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { entries: [], unreadable: [], missing: true };
    throw error;
  }
  const entries: BackupEntry[] = [];
  const unreadable: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const entry = parseEntry(line);
    if (entry) entries.push(entry);
    else unreadable.push(index + 1);
  });
  return { entries, unreadable };
}

function parseEntry(line: string): BackupEntry | undefined {
  try {
    const entry = JSON.parse(line) as BackupEntry;
    return typeof entry === 'object' && entry !== null && typeof entry.domain === 'string'
      ? entry
      : undefined;
  } catch {
    return undefined;
  }
}
