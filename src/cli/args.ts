import type { TrafficGuardMode } from '../model/index.js';
import type { RunSettings } from '../reconcile/index.js';
import type { ConnectionSettings } from '../service/index.js';
import { type Command, explainStrayWord, parseCommandArgs, splitCommand } from './argv.js';
import { UsageError } from './errors.js';
import { refuseUnusablePath } from './option-values.js';
import {
  type Given,
  type LOG_FORMATS,
  OPTION_TABLE,
  type OptionName,
  type OptionSpec,
  optionValue,
} from './options.js';
import { refuseUrlPassword, stateAction } from './state-args.js';
import { checkDefaultStatePath, defaultStatePath } from './state-default.js';

// Options: command line first, then WEBSITES_SYNC_* environment variables, then defaults; every option
// is described once, in options.ts.

export type { Command };
export type OutputFormat = 'text' | 'json' | 'markdown';

export interface Config {
  command: Command;
  manifest: string;
  baseUrl: string | undefined;
  /** WEBSITES_SYNC_API_KEY, as given (the file, when one is named, is read only by commands that connect). */
  apiKey: string | undefined;
  /** `--api-key-file` / WEBSITES_SYNC_API_KEY_FILE; it wins over WEBSITES_SYNC_API_KEY. */
  apiKeyFile: string | undefined;
  /** WEBSITES_SYNC_PREVIOUS_API_KEY, as given: the key before a rotation (fingerprints only, never sent). */
  previousApiKey: string | undefined;
  /** `--previous-api-key-file` / WEBSITES_SYNC_PREVIOUS_API_KEY_FILE; it wins over WEBSITES_SYNC_PREVIOUS_API_KEY. */
  previousApiKeyFile: string | undefined;
  stateFile: string;
  /**
   * Where the state lives: `--state` (a path or a postgres:// URL, which holds a password: never print
   * it), else `--state-file`. `--state-url-file` (read when the store is opened) wins over both.
   */
  state: string;
  /** `--state-url-file`: the postgres:// URL, read from this file. */
  stateUrlFile: string | undefined;
  /** `state show` / `state migrate`. */
  stateAction: 'show' | 'migrate' | undefined;
  /** `state migrate --from` / `--to`; undefined: the --state location. */
  from: string | undefined;
  to: string | undefined;
  /** `--backup-file`: the deleted websites' settings; default beside the state file. */
  backupFile: string | undefined;
  /** `--notify-url`: webhook for events (checked: https, or http to loopback only). */
  notifyUrl: string | undefined;
  /** `restore DOMAIN…`: the domains to restore (all when empty). */
  domains: string[];
  concurrency: number;
  intervalMs: number;
  /** `--leader-poll`: a standby's tries to take over; a holder's heartbeat (a leader's, a --once run's). */
  leaderPollMs: number;
  once: boolean;
  dryRun: boolean;
  prune: boolean;
  /** `--delete-delay`: overrides the manifest's `delete_delay` when set. */
  deleteDelayMs: number | undefined;
  /** `--traffic-window` / `--traffic-guard`: override the manifest's `traffic_window` / `traffic_guard`. */
  trafficWindowDays: number | undefined;
  trafficGuard: TrafficGuardMode | undefined;
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
  /** The part a reconcile takes (`--once` and the daemon hand it over as it is). */
  run: RunSettings;
  /** The part the service client takes. */
  connection: ConnectionSettings;
  /**
   * Where each option's value came from, for every error about it: the flag as typed (`-o`,
   * `--output`), the variable that set it (`WEBSITES_SYNC_BASE_URL`), or `--NAME` for a default.
   */
  sources: Readonly<Record<OptionName, string>>;
}

export type LogFormat = (typeof LOG_FORMATS)[number];

/** The settings of this invocation: one validated object, frozen, from which each stage takes its part. */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): Readonly<Config> {
  const config = parseMutable(argv, env);
  for (const part of [config.domains, config.rest, config.run, config.connection]) Object.freeze(part);
  return Object.freeze(config);
}

function parseMutable(argv: string[], env: NodeJS.ProcessEnv): Config {
  const { command, args } = splitCommand(argv);
  if (command === 'simulator') return { ...resolve(command, {}, {}), rest: args };
  for (const name of ['api-key', 'previous-api-key']) {
    if (args.some((a) => a === `--${name}` || a.startsWith(`--${name}=`))) {
      const env = `WEBSITES_SYNC_${name.toUpperCase().replace(/-/g, '_')}`;
      throw new UsageError(
        `--${name}: the API key is never accepted on the command line (it would show in \`ps\` and shell history); set ${env} or use --${name}-file`,
      );
    }
  }
  const { values, positionals, typed } = parseCommandArgs(command, args);
  // Help and the version read no option (a bad variable or path does not hide them).
  if (values.help) return { ...resolve('help', {}, {}), helpFor: command };
  if (values.version) return resolve('version', {}, {});
  if (command === 'restore') return { ...resolve(command, values, env, typed), domains: positionals };
  if (command === 'state')
    return { ...resolve(command, values, env, typed), stateAction: stateAction(positionals) };
  if (positionals.length > 0) throw new UsageError(explainStrayWord(command, positionals[0] ?? ''));
  const config = resolve(command, values, env, typed);
  if (config.withSchema && config.outputFile === undefined) {
    throw new UsageError(
      '--schema: only with --out FILE (the schema goes beside the manifest); for stdout use: websites-sync schema > websites.schema.json',
    );
  }
  return config;
}

/** export's -o names a format like everywhere else: yaml, the only one it writes. */
function exportedOf(
  command: Command,
  values: Given,
  typed: Readonly<Record<string, string>>,
): Pick<Config, 'outputFile' | 'withSchema'> {
  if (command !== 'export') return { outputFile: undefined, withSchema: false };
  const output = values.output;
  if (typeof output === 'string' && output !== 'yaml') {
    throw new UsageError(
      `export ${typed.output ?? '--output'}: "${output}" is not a format; export writes yaml only (text, json and markdown are formats of a run's plan). To write the manifest to a file: --out ${/[./]/.test(output) ? output : 'FILE'}`,
    );
  }
  return { outputFile: values.out as string | undefined, withSchema: values.schema === true };
}

/**
 * The settings of a command, each from the table: the option, else its variable, else its default.
 * Options the command does not accept take their default (their variables are not read).
 */
function resolve(
  command: Command,
  given: Given,
  env: NodeJS.ProcessEnv,
  typed: Readonly<Record<string, string>> = {},
): Config {
  refuseContradictions(given);
  const exported = exportedOf(command, given, typed);
  // The key has no option (never on the command line): only its variable, for the commands that connect.
  const connects = (OPTION_TABLE['base-url'].commands as readonly string[]).includes(command);
  const apiKey = connects ? env.WEBSITES_SYNC_API_KEY?.trim() || undefined : undefined;
  const runs = (OPTION_TABLE['previous-api-key-file'].commands as readonly string[]).includes(command);
  const previousApiKey = runs ? env.WEBSITES_SYNC_PREVIOUS_API_KEY?.trim() || undefined : undefined;
  const flat = resolveFlat(command, readAll(command, given, env, typed), exported);
  return withGroups({ ...flat, apiKey, previousApiKey });
}

interface ReadOptions {
  values: Record<OptionName, unknown>;
  sources: Record<OptionName, string>;
}

/**
 * Every option's value and where it came from, in the table's order; a path option the command takes
 * is refused when it names a directory, or, for a file the tool writes, anything but a regular file.
 */
function readAll(
  command: Command,
  given: Given,
  env: NodeJS.ProcessEnv,
  typed: Readonly<Record<string, string>>,
): ReadOptions {
  const read = { values: {}, sources: {} } as ReadOptions;
  for (const [name, spec] of Object.entries(OPTION_TABLE) as Array<[OptionName, OptionSpec]>) {
    const accepted = (spec.commands as readonly string[]).includes(command);
    const { value, source } = optionValue(name, accepted ? given : {}, accepted ? env : {}, typed);
    if (accepted && spec.file && typeof value === 'string' && value !== '') {
      refuseUnusablePath(value, source, spec.file);
    }
    read.values[name] = value;
    read.sources[name] = source;
  }
  return read;
}

function resolveFlat(
  command: Command,
  { values, sources }: ReadOptions,
  exported: Pick<Config, 'outputFile' | 'withSchema'>,
): Omit<Config, 'run' | 'connection' | 'apiKey' | 'previousApiKey'> {
  const value = <T>(name: OptionName) => values[name] as T;
  refuseUrlPassword(values, sources);
  const given = value<string | undefined>('state-file') || undefined;
  const stateFile = given ?? defaultStatePath(value<string>('manifest'));
  const elsewhere = value<string | undefined>('state') || value<string | undefined>('state-url-file');
  if (given === undefined && !elsewhere) {
    checkDefaultStatePath(stateFile, command, value<string | undefined>('base-url'));
  }
  const output = command === 'export' ? 'text' : (value<string | undefined>('output') ?? 'text');
  if (!['text', 'json', 'markdown'].includes(output)) {
    throw new UsageError(`${sources.output}: "${output}" is not a format; use text, json or markdown`);
  }
  return {
    command,
    manifest: value<string>('manifest'),
    baseUrl: value<string | undefined>('base-url') || undefined,
    apiKeyFile: value<string | undefined>('api-key-file') || undefined,
    previousApiKeyFile: value<string | undefined>('previous-api-key-file') || undefined,
    stateFile,
    state: value<string | undefined>('state') || stateFile,
    stateUrlFile: value<string | undefined>('state-url-file') || undefined,
    stateAction: undefined,
    from: value<string | undefined>('from') || undefined,
    to: value<string | undefined>('to') || undefined,
    backupFile: value<string | undefined>('backup-file') || undefined,
    notifyUrl: value<string | undefined>('notify-url'),
    domains: [],
    concurrency: value<number>('concurrency'),
    intervalMs: value<number>('interval'),
    leaderPollMs: value<number>('leader-poll'),
    once: value<boolean>('once'),
    dryRun: value<boolean>('dry-run'),
    prune: value<boolean>('prune'),
    deleteDelayMs: value<number | undefined>('delete-delay'),
    trafficWindowDays: value<number | undefined>('traffic-window'),
    trafficGuard: value<TrafficGuardMode | undefined>('traffic-guard'),
    force: value<boolean>('force'),
    adopt: value<boolean>('adopt'),
    output: output as OutputFormat,
    out: command === 'export' ? undefined : value<string | undefined>('out'),
    plan: value<string | undefined>('plan'),
    detailedExitcode: value<boolean>('detailed-exitcode'),
    listen: value<string | undefined>('listen') || undefined,
    logLevel: value<string | undefined>('log-level'),
    logFormat: value<LogFormat | undefined>('log-format'),
    timeoutMs: value<number>('timeout'),
    rateWindowMs: value<number>('rate-window'),
    rateBudget: value<number | undefined>('rate-budget'),
    allowInsecureHttp: value<boolean>('allow-insecure-http'),
    ...exported,
    rest: [],
    sources,
  };
}

/** The groups each stage takes, from the same values (nothing is read twice). */
function withGroups(config: Omit<Config, 'run' | 'connection'>): Config {
  return {
    ...config,
    run: {
      prune: config.prune,
      deleteDelayMs: config.deleteDelayMs,
      ...(config.trafficWindowDays === undefined ? {} : { trafficWindowDays: config.trafficWindowDays }),
      ...(config.trafficGuard === undefined ? {} : { trafficGuard: config.trafficGuard }),
      force: config.force,
      dryRun: config.dryRun,
      concurrency: config.concurrency,
      adopt: config.adopt,
      runBy: config.once ? 'websites-sync --once' : 'websites-sync (daemon)',
    },
    connection: {
      timeoutMs: config.timeoutMs,
      rateWindowMs: config.rateWindowMs,
      concurrency: config.concurrency,
    },
  };
}

/** Options that would silently mean something else are errors, as the user wrote them. */
function refuseContradictions(v: Given): void {
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
