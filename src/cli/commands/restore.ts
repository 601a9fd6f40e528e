import { exportManifest } from '../../export/index.js';
import {
  canonicalDomain,
  type ListedName,
  matchWebsites,
  type RemoteWebsite,
  websiteKey,
} from '../../model/index.js';
import type { BackupEntry, StateStore } from '../../state/index.js';
import type { Config } from '../args.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { openStoreFromConfig } from '../state-store.js';
import { VERSION } from '../version.js';

/**
 * `restore [DOMAIN…]`: manifest entries for deleted websites, from the latest backup of each, to paste
 * into the manifest and apply. Only settings come back: the statistics of a deleted website are gone.
 */
export async function runRestore(config: Config, io: Io): Promise<number> {
  const store = await openStoreFromConfig(config, io);
  const path = store.backupsShown;
  const { entries, unreadable } = await readBackupFile(store, config).finally(() => store.close());
  if (unreadable.length > 0) io.stderr.write(unreadableWarning(path, unreadable));
  const backups = latestBackups(entries);
  const wanted = config.domains.length > 0 ? pick(backups, config.domains, path) : [...backups.values()];
  if (wanted.length === 0) {
    io.stderr.write(`restore: ${path} holds no deleted website.\n`);
    return EXIT.ok;
  }
  const baseUrls = [...new Set(wanted.map((entry) => entry.base_url))];
  const { text } = exportManifest(wanted.map(recordOf), {
    baseUrl: baseUrls.join(', ') || 'the service',
    version: VERSION,
    now: new Date(),
    backupFile: path,
  });
  io.stdout.write(text);
  io.stderr.write(
    `${wanted.length} website(s) from ${path}. Their settings are restored by applying these entries; their statistics are not restorable.\n`,
  );
  return EXIT.ok;
}

/** The latest backup of each website, by the identity every stage uses (its canonical domain). */
function latestBackups(entries: readonly BackupEntry[]): Map<string, BackupEntry> {
  const latest = new Map<string, BackupEntry>();
  for (const entry of entries) latest.set(websiteKey(entry.domain), entry);
  return latest;
}

/**
 * The backups of the domains asked for, each written as a manifest entry may be (any case, a scheme,
 * a trailing dot, an IDN, a `www.`): it means the website a manifest entry of that name would mean
 * (`matchWebsites`: a record stored under another name, `www.` or `https://`, answers to its name today).
 */
function pick(backups: Map<string, BackupEntry>, domains: readonly string[], path: string): BackupEntry[] {
  const asked = new Map<string, { input: string; name: ListedName }>();
  for (const input of domains) {
    const canonical = canonicalDomain(input);
    if ('error' in canonical) throw new UsageError(`restore: ${canonical.error}`);
    // Two spellings of one website (`old.example.com www.old.example.com`) are one request: keyed by
    // the name a manifest entry would mean, or the second finds no backup left to match.
    const { domain, written } = canonical;
    if (!asked.has(domain)) asked.set(domain, { input, name: { domain, writtenDomain: written } });
  }
  const entryOf = new Map([...backups.values()].map((entry) => [recordOf(entry), entry]));
  const wanted = [...asked.values()];
  const matches = matchWebsites(
    wanted.map((want) => want.name),
    [...entryOf.keys()],
  );
  const missing = wanted
    .filter((_, index) => matches.recordOf(index) === undefined)
    .map((want) => want.input);
  if (missing.length > 0) throw new UsageError(`restore: no backup of ${missing.join(', ')} in ${path}`);
  return wanted.flatMap((_, index) => entryOf.get(matches.recordOf(index)!) ?? []);
}

function recordOf(entry: BackupEntry): RemoteWebsite {
  return {
    id: entry.id,
    domain: entry.domain,
    ...(entry.privacy === 'unknown' ? {} : { privacy: entry.privacy as RemoteWebsite['privacy'] }),
    ...(entry.email === 'unknown' ? {} : { email: entry.email }),
    ...(entry.exclude_bots === 'unknown' ? {} : { exclude_bots: entry.exclude_bots }),
    ...(entry.exclude_ips === 'unknown' ? {} : { exclude_ips: entry.exclude_ips }),
  };
}

/** Lines that hold no backup (cut short by a crash, edited): said, so a lost backup is never silent. */
function unreadableWarning(path: string, lines: readonly number[]): string {
  const shown = lines.slice(0, 10).join(', ');
  const more = lines.length > 10 ? ` and ${lines.length - 10} more` : '';
  return `restore: warning: ${path}: line(s) ${shown}${more} hold no readable backup (cut short or edited); the settings they held are not restored\n`;
}

/** The backup file, or an error naming what chose it: its option or variable, or the state file's place. */
async function readBackupFile(store: StateStore, config: Config) {
  const path = store.backupsShown;
  try {
    const read = await store.readBackups();
    // A missing file is no backup yet (nothing deleted); here that is no answer.
    if (read.missing) throw new UsageError(noBackupFile(path, config));
    return read;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !code.startsWith('E')) throw error;
    const why = code === 'EISDIR' ? 'is a directory' : `cannot be read (${code})`;
    throw new UsageError(
      config.backupFile
        ? `${config.sources['backup-file']}: ${path} ${why}; give the path of a file`
        : `the backup file ${path} (beside the state file) ${why}; set --backup-file (WEBSITES_SYNC_BACKUP_FILE) to a file`,
    );
  }
}

function noBackupFile(path: string, config: Config): string {
  const chosen = config.backupFile ? `${config.sources['backup-file']}: ` : 'restore: ';
  return `${chosen}there is no backup file at ${path}: no website has been deleted with ${config.backupFile ? 'it' : 'this state file'} yet (a backup is written before each delete), or the file is elsewhere: set --backup-file (WEBSITES_SYNC_BACKUP_FILE)`;
}
