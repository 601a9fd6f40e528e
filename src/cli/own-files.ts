import { stat } from 'node:fs/promises';
import { backupPathFor, isPostgresUrl, landingOf, sentPathFor, whereItLands } from '../state/index.js';
import type { Config } from './args.js';
import { UsageError } from './errors.js';

// The files the tool keeps for the operator (the manifest, the state and its lock, the backups) are
// never the target of an output file, by any path: a symlink, a hard link or `..` to one of them is the
// same file, and writing a plan or an export over it would lose what it remembers (protections,
// pending deletes, the settings of deleted websites).

async function sameFile(a: string, b: string): Promise<boolean> {
  if ((await landingOf(a)) === (await landingOf(b))) return true;
  const [first, second] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  // Hard links: one file under two names.
  return first !== undefined && second !== undefined && first.dev === second.dev && first.ino === second.ino;
}

/** Refuses `target` when it is one of `own` ([what it is, its path]), naming which. */
export async function refuseOwnFile(
  option: string,
  target: string,
  own: ReadonlyArray<readonly [what: string, path: string]>,
): Promise<void> {
  for (const [what, path] of own) {
    if (await sameFile(target, path)) {
      throw new UsageError(`${option} ${target}: that is ${what}; write to a file of its own`);
    }
  }
}

/**
 * The files a run keeps or reads besides the manifest: the state, its lock (beside the file the state
 * really is, through a symlink), the backups of deleted websites, what `--once` last notified, and the
 * API key's file.
 */
export async function keptFiles(
  config: Pick<Config, 'state' | 'backupFile' | 'apiKeyFile' | 'previousApiKeyFile'>,
): Promise<Array<[string, string]>> {
  const { state: stateFile } = config;
  const apiKey: Array<[string, string]> = [
    ...(config.apiKeyFile ? [['the API key file', config.apiKeyFile] as [string, string]] : []),
    ...(config.previousApiKeyFile
      ? [['the previous API key file', config.previousApiKeyFile] as [string, string]]
      : []),
  ];
  // A PostgreSQL state keeps no file here.
  if (isPostgresUrl(stateFile)) return apiKey;
  return [
    ['the state file', stateFile],
    ["the state file's lock", `${await whereItLands(stateFile)}.lock`],
    ['the backup file', backupPathFor(stateFile, config.backupFile)],
    ["the state file's record of notifications sent", sentPathFor(stateFile)],
    ...apiKey,
  ];
}
