import { backupPathFor, readBackups } from '../../backup/index.js';
import { exportManifest } from '../../export/index.js';
import type { RemoteWebsite } from '../../model/index.js';
import type { Config } from '../args.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { VERSION } from '../version.js';

/**
 * `restore [DOMAIN…]`: manifest entries for deleted websites, from the latest backup of each, to paste
 * into the manifest and apply. Only settings come back: the statistics of a deleted website are gone.
 */
export async function runRestore(config: Config, io: Io): Promise<number> {
  const path = backupPathFor(config.stateFile, config.backupFile);
  const latest = new Map<string, RemoteWebsite>();
  let baseUrl = '';
  for (const entry of await readBackupFile(path, config)) {
    baseUrl = entry.base_url;
    latest.set(entry.domain, {
      id: entry.id,
      domain: entry.domain,
      ...(entry.privacy === 'unknown' ? {} : { privacy: entry.privacy as RemoteWebsite['privacy'] }),
      ...(entry.email === 'unknown' ? {} : { email: entry.email }),
      ...(entry.exclude_bots === 'unknown' ? {} : { exclude_bots: entry.exclude_bots }),
      ...(entry.exclude_ips === 'unknown' ? {} : { exclude_ips: entry.exclude_ips }),
    });
  }
  const missing = config.domains.filter((domain) => !latest.has(domain));
  if (missing.length > 0) {
    throw new UsageError(`restore: no backup of ${missing.join(', ')} in ${path}`);
  }
  const wanted = config.domains.length > 0 ? config.domains.map((d) => latest.get(d)!) : [...latest.values()];
  if (wanted.length === 0) {
    io.stderr.write(`restore: ${path} holds no deleted website.\n`);
    return EXIT.ok;
  }
  const { text } = exportManifest(wanted, {
    baseUrl: baseUrl || 'the backup file',
    version: VERSION,
    now: new Date(),
  });
  io.stdout.write(text);
  io.stderr.write(
    `${wanted.length} website(s) from ${path}. Their settings are restored by applying these entries; their statistics are not restorable.\n`,
  );
  return EXIT.ok;
}

/** The backup file, or an error naming what chose it: its option or variable, or the state file's place. */
async function readBackupFile(path: string, config: Config) {
  try {
    return await readBackups(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EISDIR' ? 'is a directory' : `cannot be read (${code})`;
    throw new UsageError(
      config.backupFile
        ? `${config.sources['backup-file']}: ${path} ${why}; give the path of a file`
        : `the backup file ${path} (beside the state file) ${why}; set --backup-file (WEBSITES_SYNC_BACKUP_FILE) to a file`,
    );
  }
}
