import { readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { backupPathFor } from '../backup/index.js';
import { sentPathFor } from '../notify/index.js';
import type { Config } from './args.js';
import { UsageError } from './errors.js';

// The files the tool keeps for the operator (the manifest, the state and its lock, the backups) are
// never the target of an output file, by any path: a symlink, a hard link or `..` to one of them is the
// same file, and writing a plan or an export over it would lose what it remembers (protections,
// pending deletes, the settings of deleted websites).

/** Where a write to `path` lands: the real path of the file, or of the one a (dangling) link creates. */
async function whereItLands(path: string, hops = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // Absent, or a link to an absent file: a write would create the link's target.
  }
  const link = await readlink(path).catch(() => undefined);
  if (link !== undefined && hops < 40) return whereItLands(resolve(dirname(path), link), hops + 1);
  const parent = await realpath(dirname(path)).catch(() => resolve(dirname(path)));
  return join(parent, basename(path));
}

async function sameFile(a: string, b: string): Promise<boolean> {
  if ((await whereItLands(a)) === (await whereItLands(b))) return true;
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
 * The files a run keeps or reads besides the manifest: the state, its lock, the backups of deleted
 * websites, what `--once` last notified, and the API key's file.
 */
export function keptFiles(
  config: Pick<Config, 'stateFile' | 'backupFile' | 'apiKeyFile'>,
): Array<[string, string]> {
  const { stateFile } = config;
  return [
    ['the state file', stateFile],
    ["the state file's lock", `${stateFile}.lock`],
    ['the backup file', backupPathFor(stateFile, config.backupFile)],
    ["the state file's record of notifications sent", sentPathFor(stateFile)],
    ...(config.apiKeyFile ? [['the API key file', config.apiKeyFile] as [string, string]] : []),
  ];
}
