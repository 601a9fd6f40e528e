import { parseDuration } from './duration.js';
import type { OptionCommand, OptionSpec } from './option-spec.js';

// The options of where the state lives (a file, or PostgreSQL shared by machines and daemon replicas),
// part of the one table of options.ts.

/** The commands that use the state (export: only so that --out is never the state file). */
export const STATE: readonly OptionCommand[] = ['sync', 'restore', 'export', 'state'];

/**
 * A file holding the state's URL is read no further: a URL, its password and its parameters
 * (sslrootcert=PATH…) take a few hundred bytes.
 */
export const MAX_STATE_URL_FILE_BYTES = 8192;

export const STATE_OPTIONS = {
  state: {
    type: 'string',
    env: 'WEBSITES_SYNC_STATE',
    arg: 'PATH|URL',
    help: 'where the state and the backups live: a file path (as --state-file), or postgres://USER@HOST:5432/DB?schema=NAME to share them between machines and daemon replicas (docs/guides/postgres-state.md); a URL with a password only from the variable or --state-url-file',
    defaultNote: 'the --state-file path',
    commands: STATE,
  },
  'state-url-file': {
    type: 'string',
    file: 'read',
    env: 'WEBSITES_SYNC_STATE_URL_FILE',
    arg: 'PATH',
    help: `read the postgres:// URL of --state from a file (a mounted secret; a regular file of at most ${MAX_STATE_URL_FILE_BYTES} bytes); it wins over --state. Never printed.`,
    commands: STATE,
  },
} as const satisfies Record<string, OptionSpec>;

export const LEADER_OPTIONS = {
  'leader-poll': {
    type: 'string',
    env: 'WEBSITES_SYNC_LEADER_POLL',
    arg: 'DURATION',
    help: 'with a PostgreSQL state: how often a standby replica tries to take over, and a holder of the lock (a leader, a --once run) checks its connection, 200ms-5m; a failover takes at most this long once the leader is gone. The same on every replica and job: a run that takes over from one that lost its session waits two of them',
    default: '5s',
    read: (text: string, name: string) => parseDuration(text, name, '--leader-poll'),
    commands: ['sync'],
  },
} as const satisfies Record<string, OptionSpec>;

export const MIGRATE_OPTIONS = {
  from: {
    type: 'string',
    arg: 'PATH|URL',
    help: 'state migrate: the state to copy, a file path or a postgres:// URL without a password',
    defaultNote: 'the --state location',
    commands: ['state'],
  },
  to: {
    type: 'string',
    arg: 'PATH|URL',
    help: 'state migrate: where to copy it (as --from)',
    defaultNote: 'the --state location',
    commands: ['state'],
  },
} as const satisfies Record<string, OptionSpec>;
