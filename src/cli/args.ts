import { parseArgs } from 'node:util';
import { suggest } from '../model/index.js';
import { parseDuration } from './duration.js';
import { UsageError } from './errors.js';
import {
  checkNotifyUrl,
  parseConcurrency,
  parseDeleteDelay,
  parseRateBudget,
  sourced,
} from './option-values.js';

// Options: command line first, then WEBSITES_SYNC_* environment variables, then defaults.

export type Command =
  | 'sync'
  | 'validate'
  | 'export'
  | 'restore'
  | 'schema'
  | 'simulator'
  | 'help'
  | 'version';
export type OutputFormat = 'text' | 'json' | 'markdown';

export interface Config {
  command: Command;
  manifest: string;
  baseUrl: string | undefined;
  /** WEBSITES_SYNC_API_KEY, as given (the file, when one is named, is read only by commands that connect). */
  apiKey: string | undefined;
  /** `--api-key-file` / WEBSITES_SYNC_API_KEY_FILE; it wins over WEBSITES_SYNC_API_KEY. */
  apiKeyFile: string | undefined;
  stateFile: string;
  /** `--backup-file`: the deleted websites' settings; default beside the state file. */
  backupFile: string | undefined;
  /** `--notify-url`: webhook for events (checked: https, or http to loopback only). */
  notifyUrl: string | undefined;
  /** `restore DOMAIN…`: the domains to restore (all when empty). */
  domains: string[];
  concurrency: number;
  intervalMs: number;
  once: boolean;
  dryRun: boolean;
  prune: boolean;
  /** `--delete-delay`: overrides the manifest's `delete_delay` when set. */
  deleteDelayMs: number | undefined;
  force: boolean;
  /** `--adopt` (with `--once`): unknown write-only fields of existing websites are recorded, not sent. */
  adopt: boolean;
  output: OutputFormat;
  out: string | undefined;
  plan: string | undefined;
  detailedExitcode: boolean;
  listen: string | undefined;
  /** `--log-level`; undefined: `warn` for a one-shot command writing pretty logs to a terminal, else `info`. */
  logLevel: string | undefined;
  /** `--log-format`; undefined: pretty on a terminal, JSON lines elsewhere. */
  logFormat: LogFormat | undefined;
  timeoutMs: number;
  /** `--rate-window`: the service's rate-limit window, which it does not announce. */
  rateWindowMs: number;
  /** `--rate-budget` as a fraction: the share of the key's limit reads may use; undefined: the mode's default. */
  rateBudget: number | undefined;
  allowInsecureHttp: boolean;
  /** `export --out FILE`: where the manifest goes (stdout when absent). */
  outputFile: string | undefined;
  /** `export --out FILE --schema`: also write the editor schema beside FILE. */
  withSchema: boolean;
  /** Arguments after a sub-command that parses its own (simulator). */
  rest: string[];
  /** `COMMAND --help`: whose help to show. */
  helpFor?: Command;
}

export const OPTIONS = {
  manifest: { type: 'string', short: 'f' },
  'base-url': { type: 'string' },
  'api-key-file': { type: 'string' },
  'state-file': { type: 'string' },
  'backup-file': { type: 'string' },
  'notify-url': { type: 'string' },
  concurrency: { type: 'string' },
  interval: { type: 'string' },
  once: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  prune: { type: 'boolean' },
  'delete-delay': { type: 'string' },
  force: { type: 'boolean' },
  adopt: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  out: { type: 'string' },
  plan: { type: 'string' },
  'detailed-exitcode': { type: 'boolean' },
  listen: { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  timeout: { type: 'string' },
  'rate-window': { type: 'string' },
  'rate-budget': { type: 'string' },
  'allow-insecure-http': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/**
 * `export` takes only the options that make sense for reading the account. As everywhere, `--out FILE`
 * names a file to write and `-o` a format: the only one export writes is `yaml`.
 */
export const EXPORT_OPTIONS = {
  out: OPTIONS.out,
  output: OPTIONS.output,
  schema: { type: 'boolean' },
  'base-url': OPTIONS['base-url'],
  'api-key-file': OPTIONS['api-key-file'],
  concurrency: OPTIONS.concurrency,
  timeout: OPTIONS.timeout,
  'rate-window': OPTIONS['rate-window'],
  'rate-budget': OPTIONS['rate-budget'],
  'log-level': OPTIONS['log-level'],
  'log-format': OPTIONS['log-format'],
  'allow-insecure-http': OPTIONS['allow-insecure-http'],
  force: OPTIONS.force,
  help: OPTIONS.help,
  version: OPTIONS.version,
} as const;

/** `schema` prints what this version accepts: it reads nothing, so it takes no other option. */
export const SCHEMA_OPTIONS = { help: OPTIONS.help, version: OPTIONS.version } as const;

const COMMANDS = new Set(['validate', 'export', 'restore', 'schema', 'simulator']);
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The sub-command wherever it stands among the global options (`-f x.yaml validate` as well as
 * `validate -f x.yaml`), and the other arguments. The simulator parses its own, so it comes first.
 */
function splitCommand(argv: string[]): { command: Command; args: string[] } {
  if (argv[0] === 'simulator') return { command: 'simulator', args: argv.slice(1) };
  const takesValue = (token: string | undefined) =>
    token !== undefined &&
    !token.includes('=') &&
    (/^-[fo]$/.test(token) ||
      (token.startsWith('--') &&
        (OPTIONS as Record<string, { type: string }>)[token.slice(2)]?.type === 'string'));
  const index = argv.findIndex(
    (token, i) => COMMANDS.has(token) && token !== 'simulator' && !takesValue(argv[i - 1]),
  );
  if (index === -1) return { command: 'sync', args: argv };
  return { command: argv[index] as Command, args: [...argv.slice(0, index), ...argv.slice(index + 1)] };
}

/** parseArgs' message for an unknown option, with the closest known one. */
function explainParseError(error: Error, options: Record<string, unknown>): string {
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(error.message)?.[1];
  if (!unknown) return `${error.message}. See websites-sync --help.`;
  const near = suggest(unknown.replace(/^-+/, ''), Object.keys(options));
  return `unknown option ${unknown}${near ? `; did you mean --${near}?` : ''} See websites-sync --help.`;
}

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  const { command, args } = splitCommand(argv);
  if (command === 'simulator') {
    return { ...defaults(env), command, rest: args, outputFile: undefined, withSchema: false };
  }
  if (args.some((a) => a === '--api-key' || a.startsWith('--api-key='))) {
    throw new UsageError(
      '--api-key: the API key is never accepted on the command line (it would show in `ps` and shell history); set WEBSITES_SYNC_API_KEY or use --api-key-file',
    );
  }
  const { values, positionals, exported } = parseCommandArgs(command, args);
  if (command === 'restore') return { ...resolve(command, values, env), ...exported, domains: positionals };
  if (positionals.length > 0) {
    const near = suggest(positionals[0] ?? '', [...COMMANDS]);
    throw new UsageError(
      `unknown command "${positionals[0]}"${near ? `; did you mean "${near}"?` : ''} Commands are validate, export, restore, schema and simulator`,
    );
  }
  if (exported.withSchema && exported.outputFile === undefined && !values.help) {
    throw new UsageError(
      '--schema: only with --out FILE (the schema goes beside the manifest); for stdout use: websites-sync schema > websites.schema.json',
    );
  }
  return { ...resolve(command, values, env), ...exported };
}

const NOT_EXPORTED = { outputFile: undefined, withSchema: false };

/** `export` and `schema` take their own options; the other commands the global ones. */
function parseCommandArgs(command: Command, args: string[]) {
  const how = { args, strict: true, allowPositionals: true } as const;
  try {
    if (command === 'export') {
      const { values, positionals } = parseArgs({ ...how, options: EXPORT_OPTIONS });
      const { out: outputFile, output, schema, ...rest } = values;
      if (output !== undefined && output !== 'yaml') {
        throw new UsageError(
          `export -o: "${output}" is not a format; export writes yaml. To write it to a file: --out ${output}`,
        );
      }
      const exported: Pick<Config, 'outputFile' | 'withSchema'> = { outputFile, withSchema: schema ?? false };
      return { values: rest, positionals, exported };
    }
    const { values, positionals } =
      command === 'schema' ? parseArgs({ ...how, options: SCHEMA_OPTIONS }) : parse(args);
    return { values, positionals, exported: NOT_EXPORTED };
  } catch (error) {
    throw new UsageError(explainParseError(error as Error, optionsOf(command)));
  }
}

function optionsOf(command: Command): Record<string, unknown> {
  if (command === 'export') return EXPORT_OPTIONS;
  return command === 'schema' ? SCHEMA_OPTIONS : OPTIONS;
}

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
}

function defaults(env: NodeJS.ProcessEnv): Omit<Config, 'command' | 'rest' | 'outputFile' | 'withSchema'> {
  return {
    manifest: env.WEBSITES_SYNC_MANIFEST || './websites.yaml',
    baseUrl: env.WEBSITES_SYNC_BASE_URL || undefined,
    apiKey: undefined,
    apiKeyFile: undefined,
    stateFile: env.WEBSITES_SYNC_STATE_FILE || './.websites-sync-state.json',
    backupFile: env.WEBSITES_SYNC_BACKUP_FILE || undefined,
    notifyUrl: undefined,
    domains: [],
    concurrency: 4,
    intervalMs: 5 * 60_000,
    once: false,
    dryRun: false,
    prune: false,
    deleteDelayMs: undefined,
    force: false,
    adopt: false,
    output: 'text',
    out: undefined,
    plan: undefined,
    detailedExitcode: false,
    listen: env.WEBSITES_SYNC_LISTEN || undefined,
    logLevel: undefined,
    logFormat: undefined,
    timeoutMs: 30_000,
    rateWindowMs: 60_000,
    rateBudget: undefined,
    allowInsecureHttp: false,
  };
}

type Values = ReturnType<typeof parse>['values'];

function resolve(
  command: Command,
  v: Values,
  env: NodeJS.ProcessEnv,
): Omit<Config, 'outputFile' | 'withSchema'> {
  const base = defaults(env);
  if (v.help) return { ...base, command: 'help', helpFor: command, rest: [] };
  if (v.version) return { ...base, command: 'version', rest: [] };
  const output = v.output ?? 'text';
  if (!['text', 'json', 'markdown'].includes(output)) {
    throw new UsageError(`--output: "${output}" is not a format; use text, json or markdown`);
  }
  const from = (option: keyof Values & string, variable: string) =>
    sourced(v[option] as string | undefined, env, `--${option}`, variable);
  const logLevel = from('log-level', 'WEBSITES_SYNC_LOG_LEVEL');
  if (logLevel.text !== undefined && !LOG_LEVELS.includes(logLevel.text)) {
    throw new UsageError(
      `${logLevel.name}: "${logLevel.text}" is not a level; use one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  const logFormat = from('log-format', 'WEBSITES_SYNC_LOG_FORMAT');
  if (logFormat.text !== undefined && !(LOG_FORMATS as readonly string[]).includes(logFormat.text)) {
    throw new UsageError(`${logFormat.name}: "${logFormat.text}" is not a format; use json or pretty`);
  }
  refuseContradictions(v);
  const interval = from('interval', 'WEBSITES_SYNC_INTERVAL');
  const rateWindow = from('rate-window', 'WEBSITES_SYNC_RATE_WINDOW');
  const notifyUrl = from('notify-url', 'WEBSITES_SYNC_NOTIFY_URL');
  const concurrency = from('concurrency', 'WEBSITES_SYNC_CONCURRENCY');
  const deleteDelay = from('delete-delay', 'WEBSITES_SYNC_DELETE_DELAY');
  const rateBudget = from('rate-budget', 'WEBSITES_SYNC_RATE_BUDGET');
  return {
    ...base,
    command,
    manifest: v.manifest ?? base.manifest,
    baseUrl: v['base-url'] ?? base.baseUrl,
    apiKey: env.WEBSITES_SYNC_API_KEY?.trim() || undefined,
    apiKeyFile: v['api-key-file'] ?? (env.WEBSITES_SYNC_API_KEY_FILE || undefined),
    stateFile: v['state-file'] ?? base.stateFile,
    backupFile: v['backup-file'] ?? base.backupFile,
    notifyUrl: checkNotifyUrl(notifyUrl.text, notifyUrl.name),
    concurrency: parseConcurrency(concurrency.text, concurrency.name),
    intervalMs: interval.text ? parseDuration(interval.text, interval.name, '--interval') : base.intervalMs,
    once: v.once ?? false,
    dryRun: v['dry-run'] ?? false,
    prune: v.prune ?? false,
    deleteDelayMs: parseDeleteDelay(deleteDelay.text, deleteDelay.name),
    force: v.force ?? false,
    adopt: v.adopt ?? false,
    output: output as OutputFormat,
    out: v.out,
    plan: v.plan,
    detailedExitcode: v['detailed-exitcode'] ?? false,
    listen: v.listen ?? base.listen,
    logLevel: logLevel.text,
    logFormat: logFormat.text as LogFormat | undefined,
    timeoutMs: v.timeout ? parseDuration(v.timeout, '--timeout') : base.timeoutMs,
    rateWindowMs: rateWindow.text
      ? parseDuration(rateWindow.text, rateWindow.name, '--rate-window')
      : base.rateWindowMs,
    rateBudget: parseRateBudget(rateBudget.text, rateBudget.name),
    allowInsecureHttp: v['allow-insecure-http'] ?? false,
    rest: [],
  };
}

/** Options that would silently mean something else are errors, as the user wrote them. */
function refuseContradictions(v: Values): void {
  if (v['detailed-exitcode'] && !v['dry-run']) {
    throw new UsageError(
      '--detailed-exitcode: only with --dry-run (it reports pending changes; an apply has none left)',
    );
  }
  const daemonOnly = [v.listen !== undefined && '--listen', v.interval !== undefined && '--interval'].filter(
    Boolean,
  );
  if (v.once && daemonOnly.length > 0) {
    throw new UsageError(
      `${daemonOnly.join(', ')}: only for the daemon; --once runs once and serves nothing`,
    );
  }
  if (v.adopt && (!v.once || v.plan !== undefined || v.out !== undefined)) {
    throw new UsageError(
      '--adopt: only with --once, and not with --plan or --out (it is the one-off start of managing an existing account)',
    );
  }
}
