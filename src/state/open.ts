import type { Logger } from 'pino';
import { openFileStore } from './file-store.js';
import { isPostgresUrl, parsePostgresUrl, passwordsInText } from './postgres/location.js';
import type { StateStore } from './store-types.js';

// Where the state lives is chosen here, once, at start-up: a path is the file backend (the default), a
// postgres:// URL the PostgreSQL backend. Nothing outside state/ knows which one it has.

export interface StateLocationOptions {
  /** `--state`: a path or a postgres:// URL (the URL holds a password: never print it). */
  location: string;
  /** `--backup-file`, for the file backend. */
  backupFile?: string;
  /** The account (the service's base URL); absent for `state show` and `state migrate`. */
  baseUrl?: string;
  /** Our command line without its values, as the lock's holder is named to others. */
  command?: string;
  logger?: Logger;
  /** What named the location, for errors (`--state`, WEBSITES_SYNC_STATE…). */
  source?: string;
  /** PostgreSQL: a standby's tries and a leader's heartbeat. */
  heartbeatMs?: number;
  /** PostgreSQL: each query's answer (`--timeout`). */
  queryTimeoutMs?: number;
}

export async function openStateStore(options: StateLocationOptions): Promise<StateStore> {
  if (!isPostgresUrl(options.location)) {
    return openFileStore({
      path: options.location,
      ...(options.backupFile === undefined ? {} : { backupFile: options.backupFile }),
    });
  }
  const location = parsePostgresUrl(options.location, options.source);
  // node-postgres and the backend's code are loaded only now: a file state's start-up does not pay.
  const { openPostgresStore } = await import('./postgres/store.js');
  return openPostgresStore({
    location,
    command: options.command ?? 'websites-sync',
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
  });
}

export { passwordsInText };

/** What of a location is secret (a URL's passwords), for the Redactor; nothing for a path. */
export function stateSecrets(location: string): string[] {
  return isPostgresUrl(location) ? passwordsInText(location) : [];
}

/** The location as it may be printed. */
export function shownLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    return parsePostgresUrl(location).shown;
  } catch {
    return 'a PostgreSQL URL';
  }
}

export { isPostgresUrl };
