import { ownText } from '../model/index.js';
import { type Io, interceptWrites } from './io.js';

// One line at the bottom of a terminal (the progress of a long apply), on stderr, drawn in place. Any
// other text on the terminal while it is shown (an operation's line on stdout, a log line, a message on
// stderr) goes through `around`: the line is erased first and drawn again after, so no text is ever
// appended to it and it always stays last. Off a terminal it never draws, and writes pass straight on.

export interface TextStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

const ERASE_LINE = ownText('\r\u001b[K');

export class StatusLine {
  readonly #stream: TextStream;
  #text: string | undefined;

  constructor(stream: TextStream) {
    this.#stream = stream;
  }

  /** Whether a line can be shown at all: the stream is a terminal. */
  get enabled(): boolean {
    return this.#stream.isTTY === true;
  }

  show(text: string): void {
    if (!this.enabled) return;
    this.#stream.write(`${ERASE_LINE}${text}`);
    this.#text = text;
  }

  /** A newer text for a shown line, drawn with the next redraw (after other output) or `show`. */
  update(text: string): void {
    if (this.#text !== undefined) this.#text = text;
  }

  clear(): void {
    if (this.#text === undefined) return;
    this.#stream.write(ERASE_LINE);
    this.#text = undefined;
  }

  /** Runs `write` (other output to the terminal) with the line erased, then draws it again. */
  around<T>(write: () => T): T {
    const text = this.#text;
    if (text === undefined) return write();
    this.clear();
    try {
      return write();
    } finally {
      this.show(text);
    }
  }

  /** Text for the terminal's stream, written around the line (a log line, say). */
  readonly write = (text: string): void => {
    this.around(() => this.#stream.write(text));
  };

  /** `io` whose stdout and stderr write around the line. */
  guard(io: Io): Io {
    const around = <T extends NodeJS.WritableStream>(stream: T): T =>
      interceptWrites(stream, (write, chunk, ...rest) => this.around(() => write(chunk, ...rest)));
    return { ...io, stdout: around(io.stdout), stderr: around(io.stderr) };
  }
}
