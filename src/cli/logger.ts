import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Redactor } from '../model/index.js';
import { type Io, useColor } from './io.js';

// pino-pretty (and its dependencies) is loaded only for a terminal: a CI job, a pipe or a container
// never pays for it at start-up. Through require(), so the bundle leaves it in node_modules.
const load = createRequire(import.meta.url);

/** Paths pino removes from every log line: secrets never reach a log. */
export const REDACT_PATHS = [
  'apiKey',
  'password',
  '*.password',
  'send.password',
  '*.send.password',
  'headers.authorization',
  '*.headers.authorization',
  'authorization',
];

export interface LoggerOptions {
  level: string;
  /** Pretty (pino-pretty) or JSON lines; by default pretty exactly when stderr is a terminal. */
  format?: 'json' | 'pretty' | undefined;
  /** Every line passes through it: a service message quoting a secret is masked like a field. */
  redactor?: Redactor;
  /** Where log lines go (tests); by default stderr, so stdout stays for plans. */
  destination?: DestinationStream;
  /** Pretty logs in colour; by default the rule of all output for a person (`useColor`) on stderr. */
  color?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: undefined,
    hooks: { streamWrite: (line: string) => options.redactor?.redact(line) ?? line },
  };
  if (options.destination) return pino(base, options.destination);
  if (prettyLogs(options.format)) {
    const pretty = load('pino-pretty') as typeof PinoPretty;
    const colorize = options.color ?? useColor(process.stderr, process.env);
    return pino(base, pretty({ destination: 2, sync: true, colorize }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

export function prettyLogs(format: LoggerOptions['format']): boolean {
  return format === undefined ? process.stderr.isTTY === true : format === 'pretty';
}

/**
 * The logger of a command. `human`: its output is for a person at a terminal (a one-shot run), where
 * informational lines would bury the plan, so only warnings and errors show unless `--log-level` asks.
 */
export function commandLogger(
  config: { logLevel: string | undefined; logFormat: LoggerOptions['format'] },
  io: Pick<Io, 'redactor' | 'env'>,
  human: boolean,
): Logger {
  const level = config.logLevel ?? (human && prettyLogs(config.logFormat) ? 'warn' : 'info');
  const color = useColor(process.stderr, io.env);
  return createLogger({ level, format: config.logFormat, redactor: io.redactor, color });
}
