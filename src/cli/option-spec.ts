// What describes an option in the table of options.ts (apart, so that parts of the table can live in
// files of their own).

/** The commands that parse these options (the simulator parses its own). */
export type OptionCommand = 'sync' | 'validate' | 'export' | 'restore' | 'schema' | 'state';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The environment variable that sets it when the option is not given. */
  readonly env?: string;
  /** The value's name in help: `PATH`, `N`, `DURATION`. */
  readonly arg?: string;
  readonly help: string;
  /** The help of one command where the option means something narrower there (`export --force`). */
  readonly helpFor?: Partial<Record<OptionCommand, string>>;
  /** The value when neither the option nor its variable is set; read like a given value. */
  readonly default?: string;
  /** For help only: a default that depends on the mode (no fixed value to read). */
  readonly defaultNote?: string;
  /** Reads the text; `name` is the option, or the variable the text came from, for errors. */
  readonly read?: (text: string, name: string) => unknown;
  /**
   * A path to a file, refused before the command runs (naming where it came from) when it is a
   * directory; `write`: a file the tool writes, so also when it is anything but a regular file (a
   * device, a FIFO, a socket), which a write would replace, block on or lose into.
   */
  readonly file?: 'read' | 'write';
  readonly commands: readonly OptionCommand[];
}
