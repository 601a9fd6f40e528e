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
  /**
   * The terminal's status line (a progress line on stderr): when there is one, each log line is written
   * through it, which erases the line first and draws it again after.
   */
  statusLine?: { readonly enabled: boolean; write(text: string): void };
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
  const colorize = options.color ?? useColor(process.stderr, process.env);
  const status = options.statusLine;
  if (status?.enabled) {
    // Formatted here, synchronously, so a line is whole on the terminal before the status line returns.
    const format = prettyLogs(options.format) ? prettifier(colorize) : (line: string) => line;
    return pino(base, { write: (line: string) => status.write(format(line)) });
  }
  if (prettyLogs(options.format)) {
    const pretty = load('pino-pretty') as typeof PinoPretty;
    return pino(base, pretty({ destination: 2, sync: true, colorize }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

function prettifier(colorize: boolean): (line: string) => string {
  const { prettyFactory } = load('pino-pretty') as typeof PinoPretty;
  return prettyFactory({ colorize });
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
  statusLine?: LoggerOptions['statusLine'],
): Logger {
  const level = config.logLevel ?? (human && prettyLogs(config.logFormat) ? 'warn' : 'info');
  const color = useColor(process.stderr, io.env);
  return createLogger({
    level,
    format: config.logFormat,
    redactor: io.redactor,
    color,
    ...(statusLine ? { statusLine } : {}),
  });
}
