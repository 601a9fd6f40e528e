import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readWholeFileSync, type WholeRead } from '../model/index.js';
import { beside, canonicalBaseUrl, STATE_FILE } from '../state/index.js';
import { UsageError } from './errors.js';
import { refuseUnusablePath } from './option-values.js';
import { OPTION_TABLE } from './options.js';

// The state file, when no --state-file (WEBSITES_SYNC_STATE_FILE) names it, is the manifest's: beside
// it, wherever the run starts. Resolved against the current directory, a cron job or a CI step started
// from the repository root with `-f acct/websites.yaml` would read another state (or none) and plan to
// delete what the manifest's own state protects.

const STATE_FILE_NAME = '.websites-sync-state.json';

/** `acct/.websites-sync-state.json` for `acct/websites.yaml`; `./.websites-sync-state.json` for `websites.yaml`. */
export function defaultStatePath(manifest: string): string {
  return dirname(manifest) === '.' ? `./${STATE_FILE_NAME}` : beside(manifest, STATE_FILE_NAME);
}

/**
 * The default state file of a run, checked like a given one. Earlier versions kept it in the current
 * directory: when it is there and not beside the manifest, the run stops before any request rather than
 * start afresh without the protections it holds. Unless that file is another account's state (its base
 * URL says so): then it is not this manifest's, whatever kept it there.
 */
export function checkDefaultStatePath(path: string, command: string, baseUrl: string | undefined): void {
  refuseUnusablePath(path, '--state-file', 'write');
  if (command !== 'sync') return;
  const earlier = `./${STATE_FILE_NAME}`;
  if (resolve(earlier) === resolve(path) || existsSync(path) || !existsSync(earlier)) return;
  const account = accountOf(earlier);
  if (baseUrl && account !== undefined && account !== canonicalBaseUrl(baseUrl)) return;
  // The current directory's own manifest keeps its state there too: that is the other reading.
  const manifest = OPTION_TABLE.manifest.default;
  const beside = existsSync(manifest) ? `, or the state of ${manifest} beside it` : '';
  throw new UsageError(
    `no state file at ${path}, beside the manifest, where it is looked for when --state-file is not given; ${earlier}, in the current directory, is where earlier versions kept it${beside}. If it is this manifest's, move it (mv ${earlier} ${path}); otherwise name this manifest's with --state-file ${path}. Nothing was sent`,
  );
}

/** The account a state file is for (its base URL); undefined when it cannot be read. */
function accountOf(file: string): string | undefined {
  try {
    // A FIFO there would block the read for ever, a huge file fill the memory: the one rule of files
    // read whole (a regular file, bounded) reads it, opened without blocking.
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    let read: WholeRead;
    try {
      read = readWholeFileSync(fd, STATE_FILE);
    } finally {
      closeSync(fd);
    }
    if (!('bytes' in read)) return undefined;
    const data: unknown = JSON.parse(read.bytes.toString('utf8'));
    const url = (data as { base_url?: unknown } | null)?.base_url;
    return typeof url === 'string' ? canonicalBaseUrl(url) : undefined;
  } catch {
    return undefined;
  }
}
