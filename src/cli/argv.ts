import { parseArgs } from 'node:util';
import { suggest } from '../model/index.js';
import { UsageError } from './errors.js';
import { type Given, type OptionCommand, parseArgsOptions, takesValue } from './options.js';

// The command line's words: which command, and the options as the user typed them.

export type Command =
  | 'sync'
  | 'validate'
  | 'export'
  | 'restore'
  | 'schema'
  | 'simulator'
  | 'help'
  | 'version';

export const COMMANDS = new Set(['validate', 'export', 'restore', 'schema', 'simulator']);

/**
 * The sub-command wherever it stands among the global options (`-f x.yaml validate` as well as
 * `validate -f x.yaml`), and the other arguments. The simulator parses its own, so it comes first.
 */
export function splitCommand(argv: string[]): { command: Command; args: string[] } {
  if (argv[0] === 'simulator') return { command: 'simulator', args: argv.slice(1) };
  const index = argv.findIndex((token, i) => {
    const before = argv[i - 1];
    return COMMANDS.has(token) && token !== 'simulator' && !(before !== undefined && takesValue(before));
  });
  if (index === -1) return { command: 'sync', args: argv };
  return { command: argv[index] as Command, args: [...argv.slice(0, index), ...argv.slice(index + 1)] };
}

/**
 * The command's own options (the table says which it accepts); others are errors. `typed`: each
 * option as the user wrote it (`-o` or `--output`), the last time, whose value counts.
 */
export function parseCommandArgs(command: Command, args: string[]) {
  const options = parseArgsOptions(command as OptionCommand);
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true });
    const typed: Record<string, string> = {};
    for (const token of parsed.tokens) if (token.kind === 'option') typed[token.name] = token.rawName;
    return { values: parsed.values as Given, positionals: parsed.positionals, typed };
  } catch (error) {
    throw new UsageError(explainParseError(error as Error, options));
  }
}

/** parseArgs' message for an unknown option, with the closest known one. */
function explainParseError(error: Error, options: Record<string, unknown>): string {
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(error.message)?.[1];
  if (!unknown) return `${error.message}. See websites-sync --help.`;
  const near = suggest(unknown.replace(/^-+/, ''), Object.keys(options));
  return `unknown option ${unknown}${near ? `; did you mean --${near}?` : ''} See websites-sync --help.`;
}
