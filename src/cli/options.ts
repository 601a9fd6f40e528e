import { parseDuration } from './duration.js';
import { UsageError } from './errors.js';
import {
  checkNotifyUrl,
  parseConcurrency,
  parseDeleteDelay,
  parseRateBudget,
  parseTrafficGuard,
  parseTrafficWindow,
} from './option-values.js';
import { LEADER_OPTIONS, MIGRATE_OPTIONS, STATE, STATE_OPTIONS } from './options-state.js';

// Every option, described once: its flag, the environment variable that sets it, its default, how its
// value is read, its help, and the commands that accept it. Parsing (node:util parseArgs), defaults,
// the environment, error messages and `--help` are all generated from this table.

import type { OptionCommand, OptionSpec } from './option-spec.js';

export type { OptionCommand, OptionSpec };

const RUN: readonly OptionCommand[] = ['sync'];
const CONNECTS: readonly OptionCommand[] = ['sync', 'export'];
const EVERY: readonly OptionCommand[] = ['sync', 'validate', 'export', 'restore', 'schema', 'state'];

const duration =
  (option: '--interval' | '--timeout' | '--rate-window' | '--leader-poll') => (text: string, name: string) =>
    parseDuration(text, name, option);

const oneOf = (allowed: readonly string[], what: string) => (text: string, name: string) => {
  if (!allowed.includes(text)) {
    throw new UsageError(
      `${name}: "${text}" is not ${what}; use ${allowed.join(', ').replace(/, ([^,]+)$/, ' or $1')}`,
    );
  }
  return text;
};

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;

export const OPTION_TABLE = {
  manifest: {
    type: 'string',
    file: 'read',
    short: 'f',
    env: 'WEBSITES_SYNC_MANIFEST',
    arg: 'PATH',
    help: 'the manifest, the desired state',
    helpFor: {
      state:
        'the manifest whose state to read: its state file is the one beside it, as for a run (with no --state-file or --state)',
      restore:
        'the manifest whose backups to read: they are beside its state file, as for a run (with no --state-file or --state)',
    },
    default: './websites.yaml',
    commands: ['sync', 'validate', 'state', 'restore'],
  },
  'base-url': {
    type: 'string',
    env: 'WEBSITES_SYNC_BASE_URL',
    arg: 'URL',
    help: 'the service; paths are {URL}/api/v1/...; state: the account to show or migrate',
    commands: [...CONNECTS, 'state'],
  },
  'api-key-file': {
    type: 'string',
    file: 'read',
    env: 'WEBSITES_SYNC_API_KEY_FILE',
    arg: 'PATH',
    help: 'read the API key from a file (a regular file of at most 8192 bytes: a FIFO or a device is refused, never waited on); otherwise WEBSITES_SYNC_API_KEY. Never on the command line.',
    commands: CONNECTS,
  },
  'previous-api-key-file': {
    type: 'string',
    file: 'read',
    env: 'WEBSITES_SYNC_PREVIOUS_API_KEY_FILE',
    arg: 'PATH',
    help: 'read the API key used before a rotation from a file (as --api-key-file: a regular file of at most 8192 bytes); otherwise WEBSITES_SYNC_PREVIOUS_API_KEY. Only recognises the fingerprints of write-only fields recorded with it (a real run records them again with the current key), so that a rotation resends nothing; never sent to the service. Never on the command line.',
    commands: RUN,
  },
  'state-file': {
    type: 'string',
    file: 'write',
    env: 'WEBSITES_SYNC_STATE_FILE',
    arg: 'PATH',
    help: 'fingerprints of write-only fields, protections and pending deletes; a path given is relative to the current directory',
    // Beside the manifest, wherever the run starts (a cron job or a CI step from the repository root
    // with -f acct/websites.yaml): the current directory would be another state, without its protections.
    defaultNote:
      '.websites-sync-state.json beside the manifest (-f: a run, state and restore); export, which takes no manifest: in the current directory',
    commands: STATE,
  },
  ...STATE_OPTIONS,
  'backup-file': {
    type: 'string',
    file: 'write',
    env: 'WEBSITES_SYNC_BACKUP_FILE',
    arg: 'PATH',
    help: 'the settings of every deleted website, appended before the delete; read by restore (with a PostgreSQL state they live in the database)',
    defaultNote: '.websites-sync-deleted.jsonl beside the state file',
    commands: STATE,
  },
  'notify-url': {
    type: 'string',
    env: 'WEBSITES_SYNC_NOTIFY_URL',
    arg: 'URL',
    help: 'POST a JSON event (with a "text" field, for Slack-compatible webhooks) on drift corrected or observed, failures, refusals, scheduled or due deletes, manifest invalid/valid; https://, or http:// to this machine',
    read: checkNotifyUrl,
    commands: RUN,
  },
  concurrency: {
    type: 'string',
    env: 'WEBSITES_SYNC_CONCURRENCY',
    arg: 'N',
    help: 'requests in flight at most, 1-64',
    default: '4',
    read: parseConcurrency,
    commands: CONNECTS,
  },
  interval: {
    type: 'string',
    env: 'WEBSITES_SYNC_INTERVAL',
    arg: 'DURATION',
    help: 'daemon: resync period, 1s-7d',
    default: '5m',
    read: duration('--interval'),
    commands: RUN,
  },
  ...LEADER_OPTIONS,
  once: { type: 'boolean', help: 'reconcile once and exit', commands: RUN },
  'dry-run': { type: 'boolean', help: 'plan only, change nothing', commands: RUN },
  prune: { type: 'boolean', help: 'allow deletes (as prune: true in the manifest)', commands: RUN },
  'delete-delay': {
    type: 'string',
    env: 'WEBSITES_SYNC_DELETE_DELAY',
    arg: 'DURATION',
    help: 'delete a website only after every run for that long planned it, 0-365d; overrides delete_delay: in the manifest',
    defaultNote: "the manifest's delete_delay, else 0: at once",
    read: parseDeleteDelay,
    commands: RUN,
  },
  force: {
    type: 'boolean',
    help: 'override the mass-delete guard and the traffic guard',
    helpFor: {
      export: 'replace an existing --out FILE',
      state: 'state migrate: replace a target that already holds a state or backups',
    },
    commands: [...CONNECTS, 'state'],
  },
  'traffic-window': {
    type: 'string',
    env: 'WEBSITES_SYNC_TRAFFIC_WINDOW',
    arg: 'DAYS',
    help: "before a delete, read the website's visitors over this many days (one request per delete) and refuse to delete one that had any, 0-90; 0 turns the traffic guard off; overrides traffic_window: in the manifest",
    defaultNote: "the manifest's traffic_window, else 30",
    read: parseTrafficWindow,
    commands: RUN,
  },
  'traffic-guard': {
    type: 'string',
    env: 'WEBSITES_SYNC_TRAFFIC_GUARD',
    arg: 'MODE',
    help: 'a delete whose traffic cannot be read: lenient deletes it (shown as "traffic unknown"), strict refuses it (a read that got no answer holds it back under either); overrides traffic_guard: in the manifest',
    defaultNote: "the manifest's traffic_guard, else lenient",
    read: parseTrafficGuard,
    commands: RUN,
  },
  ...MIGRATE_OPTIONS,
  adopt: {
    type: 'boolean',
    help: 'with --once: websites already on the account whose exclude_params and password were never sent by this tool are assumed to match the manifest (recorded, not sent); onboarding costs only the listing',
    commands: RUN,
  },
  output: {
    type: 'string',
    short: 'o',
    arg: 'FORMAT',
    help: 'the format of the plan on stdout: text, json or markdown',
    helpFor: { export: 'the format on stdout: yaml, the only one export writes (a file: --out FILE)' },
    defaultNote: 'text; export: yaml',
    commands: CONNECTS,
  },
  out: {
    type: 'string',
    arg: 'FILE',
    file: 'write',
    help: 'with --dry-run: also save the plan (JSON, no secret) for --plan',
    helpFor: { export: 'write the manifest there instead of stdout' },
    commands: CONNECTS,
  },
  plan: {
    type: 'string',
    arg: 'FILE',
    file: 'read',
    help: 'apply exactly this saved plan; exit 1 ("stale plan") if the account, the manifest or a password changed since it was saved',
    commands: RUN,
  },
  'detailed-exitcode': {
    type: 'boolean',
    help: 'with --dry-run: exit 2 when there are changes',
    commands: RUN,
  },
  schema: {
    type: 'boolean',
    help: 'export with --out FILE: also write websites.schema.json beside FILE, the editor schema its first line points at (an older one is updated; another file of that name is replaced only with --force)',
    commands: ['export'],
  },
  listen: {
    type: 'string',
    env: 'WEBSITES_SYNC_LISTEN',
    arg: 'HOST:PORT',
    help: 'daemon: serve /healthz, /readyz and /metrics',
    commands: RUN,
  },
  timeout: {
    type: 'string',
    arg: 'DURATION',
    help: "each attempt's whole answer: connect, headers and body, 100ms-10m; each query of a PostgreSQL state too",
    default: '30s',
    read: duration('--timeout'),
    commands: [...CONNECTS, 'state'],
  },
  'rate-window': {
    type: 'string',
    env: 'WEBSITES_SYNC_RATE_WINDOW',
    arg: 'DURATION',
    help: "the service's rate-limit window, which it does not announce, 1s-1d: pacing stays inside it",
    default: '1m',
    read: duration('--rate-window'),
    commands: CONNECTS,
  },
  'rate-budget': {
    type: 'string',
    env: 'WEBSITES_SYNC_RATE_BUDGET',
    arg: 'PERCENT',
    help: "share of the key's rate limit reads may use, 1-100; changes are always applied at the whole limit",
    defaultNote: "50 for the daemon's resyncs, 100 for --once",
    read: parseRateBudget,
    commands: CONNECTS,
  },
  'log-level': {
    type: 'string',
    env: 'WEBSITES_SYNC_LOG_LEVEL',
    arg: 'LEVEL',
    help: LOG_LEVELS.join(', '),
    defaultNote: 'info; warn for --once with pretty logs (a terminal, or --log-format pretty)',
    read: oneOf(LOG_LEVELS, 'a level'),
    commands: CONNECTS,
  },
  'log-format': {
    type: 'string',
    env: 'WEBSITES_SYNC_LOG_FORMAT',
    arg: 'FORMAT',
    help: 'json or pretty',
    defaultNote: 'pretty on a terminal, else json',
    read: oneOf(LOG_FORMATS, 'a format'),
    commands: CONNECTS,
  },
  'allow-insecure-http': {
    type: 'boolean',
    help: 'allow a plain http:// base URL to a non-loopback host',
    commands: CONNECTS,
  },
  help: { type: 'boolean', short: 'h', help: 'this help', commands: EVERY },
  version: { type: 'boolean', short: 'V', help: 'the version', commands: EVERY },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTION_TABLE;

export type Given = Record<string, string | boolean | undefined>;

/** An option's value and where it came from, for errors: the flag as typed, its variable, or `--NAME`. */
export interface Resolved {
  value: unknown;
  source: string;
}

/**
 * An option's value: given on the command line, else from its variable, else its default; read by
 * its reader, whose errors name where the text came from. `typed`: the flags as the user typed them
 * (`-o` or `--output`), so an error names what they wrote.
 */
export function optionValue(
  name: OptionName,
  given: Given,
  env: NodeJS.ProcessEnv,
  typed: Readonly<Record<string, string>> = {},
): Resolved {
  const spec: OptionSpec = OPTION_TABLE[name];
  const flag = given[name];
  const asTyped = typed[name] ?? `--${name}`;
  if (spec.type === 'boolean') return { value: flag === true, source: asTyped };
  const fromEnv = spec.env ? env[spec.env] : undefined;
  const [text, source] =
    typeof flag === 'string'
      ? [flag, asTyped]
      : fromEnv && spec.env
        ? [fromEnv, spec.env]
        : [spec.default, `--${name}`];
  if (text === undefined) return { value: undefined, source };
  return { value: spec.read ? spec.read(text, source) : text, source };
}
