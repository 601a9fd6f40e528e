import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

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
  /** Where log lines go (tests); by default stderr, so stdout stays for plans. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: undefined,
  };
  if (options.destination) return pino(base, options.destination);
  if (process.stderr.isTTY) {
    return pino(base, pretty({ destination: 2, sync: true, colorize: !process.env.NO_COLOR }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}
