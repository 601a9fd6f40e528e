import type { Logger } from 'pino';
import { readSmallFile } from '../model/index.js';
import { isPostgresUrl, openStateStore, type StateStore, stateSecrets } from '../state/index.js';
import type { Config } from './args.js';
import { COMMANDS } from './argv.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { refuseUnusablePath } from './option-values.js';
import { MAX_STATE_URL_FILE_BYTES } from './options-state.js';

// The state's location, chosen once per process: `--state-url-file`, else `--state`, else
// `--state-file`. A URL's password is given to the Redactor before anything can print it.

export interface StateLocation {
  location: string;
  /** What named it, for errors: the option as typed or its variable. */
  source: string;
}

export async function stateLocation(config: Config, io: Io): Promise<StateLocation> {
  if (config.stateUrlFile !== undefined) {
    const source = config.sources['state-url-file'];
    const read = readSmallFile(config.stateUrlFile, {
      source,
      maxBytes: MAX_STATE_URL_FILE_BYTES,
      holds: 'a postgres:// URL',
      variable: 'WEBSITES_SYNC_STATE',
    });
    if ('problem' in read) throw new UsageError(read.problem);
    const location = read.text.trim();
    for (const secret of stateSecrets(location)) io.redactor.add(secret);
    if (!isPostgresUrl(location)) {
      throw new UsageError(`${source}: ${config.stateUrlFile} does not hold a postgres:// URL`);
    }
    return { location, source };
  }
  // --state defaults to the --state-file path; its source is '--state' both when typed and when not.
  const given = config.state !== config.stateFile;
  const source = given ? config.sources.state : config.sources['state-file'];
  for (const secret of stateSecrets(config.state)) io.redactor.add(secret);
  // A path is a file the tool writes: never a directory, a device, a FIFO or a socket.
  if (!isPostgresUrl(config.state)) refuseUnusablePath(config.state, source, 'write');
  return { location: config.state, source };
}

/** The command line as a lock's holder is named to others: its words and flags, never a value. */
export function holderCommand(argv: readonly string[] = process.argv.slice(2)): string {
  const words = argv.filter(
    (word) => word.startsWith('-') || COMMANDS.has(word) || word === 'show' || word === 'migrate',
  );
  return ['websites-sync', ...words.map((word) => word.split('=')[0])].join(' ');
}

export async function openStoreFromConfig(
  config: Config,
  io: Io,
  options: { baseUrl?: string; logger?: Logger; location?: StateLocation; heartbeatMs?: number } = {},
): Promise<StateStore> {
  const { location, source } = options.location ?? (await stateLocation(config, io));
  return openStateStore({
    location,
    source,
    command: holderCommand(),
    ...(config.backupFile === undefined ? {} : { backupFile: config.backupFile }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.logger ? { logger: options.logger } : {}),
    // Every holder checks its lock every --leader-poll, a `--once` run as a daemon does: a run taking
    // over from one that lost its session waits two of them (the same on every replica and job).
    heartbeatMs: options.heartbeatMs ?? config.leaderPollMs,
    // The service's bound on an answer bounds each PostgreSQL query too.
    ...(typeof config.timeoutMs === 'number' ? { queryTimeoutMs: config.timeoutMs } : {}),
  });
}
