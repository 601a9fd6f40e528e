import { Redactor } from '../model/index.js';
import type { ProcessSignals } from './early-signals.js';

/** Where a command writes and what environment it reads: the process's, or a test's. */
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /**
   * Knows every secret of the run (the key, the manifest's passwords); everything written to stdout,
   * stderr, the logs, webhooks and the files the tool writes passes through it (`show`, `showJson`):
   * secrets masked, control, bidirectional and zero-width characters shown escaped.
   */
  redactor: Redactor;
  /** The process's signals, caught from its first instant (main.ts); `process` itself when absent. */
  signals?: ProcessSignals;
}

/**
 * Whether text for a person on `stream` is coloured: the one rule for plans, progress and pretty logs.
 * FORCE_COLOR (force-color.org; as Node itself reads it) wins: `0` or `false` turns colour off, any other
 * non-empty value on, even into a pipe (a CI log that renders ANSI). Otherwise NO_COLOR (no-color.org)
 * and a terminal decide.
 */
export function useColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

type Writable = Pick<NodeJS.WritableStream, 'write'>;
type WriteCall = (chunk: unknown, ...rest: unknown[]) => boolean;

/**
 * `stream` (its other properties, such as isTTY, kept) with every write going through `write`, which is
 * given the stream's own write to call.
 */
export function interceptWrites<T extends Writable>(
  stream: T,
  write: (original: WriteCall, chunk: unknown, ...rest: unknown[]) => boolean,
): T {
  const original = stream.write.bind(stream) as WriteCall;
  const wrapped = Object.create(stream) as T;
  (wrapped as Writable).write = ((chunk: unknown, ...rest: unknown[]) =>
    write(original, chunk, ...rest)) as Writable['write'];
  return wrapped;
}

/**
 * A stream whose text passes through the redactor's `show` on its way out: whatever a command writes,
 * a secret is masked and a character from outside that a terminal would interpret is shown escaped;
 * only the tool's own codes (`ownText`: colours, the status line's erase) reach the terminal as codes.
 * A JSON document written marked as one (`jsonDocument`: the JSON plan) is masked in its strings only,
 * so that it stays JSON.
 */
export function showing<T extends Writable>(stream: T, redactor: Redactor): T {
  return interceptWrites(stream, (write, chunk, ...rest) => {
    // Bytes too (a piped stream writes Buffers): the tool writes UTF-8 text only.
    if (chunk instanceof Uint8Array)
      return write(redactor.show(Buffer.from(chunk).toString('utf8')), ...rest);
    return write(typeof chunk === 'string' ? redactor.show(chunk) : chunk, ...rest);
  });
}

/** The process's streams and environment, every output through one redactor. */
export function processIo(): Io {
  const redactor = new Redactor();
  return {
    stdout: showing(process.stdout, redactor),
    stderr: showing(process.stderr, redactor),
    env: process.env,
    redactor,
  };
}
