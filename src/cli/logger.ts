import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import {
  jsonDocument,
  oneLine,
  ownText,
  type Redactor,
  shownJson,
  shownText,
  shownValue,
} from '../model/index.js';
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
  const pretty = prettyLogs(options.format);
  const base = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: undefined,
    hooks: { streamWrite: (line: string) => shownLogLine(line, options.redactor, pretty) },
  };
  if (options.destination) return pino(base, options.destination);
  const colorize = options.color ?? useColor(process.stderr, process.env);
  const status = options.statusLine;
  if (status?.enabled) {
    // Formatted here, synchronously, so a line is whole on the terminal before the status line returns.
    // The pretty line's codes are pino-pretty's own: the values in it were escaped by `shownLogLine`.
    // A JSON line is marked as one, so that the stream masks it as JSON again, not as text.
    const prettify = pretty ? prettifier(colorize) : undefined;
    const format = (line: string) => (prettify ? ownText(prettify(line)) : jsonDocument(line));
    return pino(base, { write: (line: string) => status.write(format(line)) });
  }
  if (pretty) {
    const prettyStream = load('pino-pretty') as typeof PinoPretty;
    return pino(base, prettyStream({ destination: 2, sync: true, colorize }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/**
 * A log line on its way out: secrets masked (in its strings: the line is JSON, and stays JSON whatever a
 * secret is, Redactor.redactJson), and every character a terminal would interpret escaped.
 * A JSON line keeps the exact values (as JSON escapes); pino-pretty prints values as they are, so for
 * it they are escaped visibly (`\x1b`) before it reads the line. It prints the message raw too, where a
 * line feed (in a name or a service's message it quotes) would start a line that passes for a log line
 * of its own: the message is put on one line (`\x0a`). The fields it prints JSON-quoted.
 */
export function shownLogLine(line: string, redactor: Redactor | undefined, pretty: boolean): string {
  const masked = redactor?.redactJson(line) ?? line;
  if (!pretty) return shownJson(masked);
  try {
    const shown = shownValue<Record<string, unknown>>(JSON.parse(masked));
    if (typeof shown.msg === 'string') shown.msg = oneLine(shown.msg);
    return `${JSON.stringify(shown)}\n`;
  } catch {
    return shownText(masked); // not JSON: pino-pretty prints it as it is
  }
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
