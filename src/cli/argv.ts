import { parseArgs } from 'node:util';
import { suggest } from '../model/index.js';
import { UsageError } from './errors.js';
import {
  type Given,
  OPTION_TABLE,
  type OptionCommand,
  type OptionSpec,
  parseArgsOptions,
} from './options.js';

// The command line's words: which command, the options as the user typed them, and what a person reads
// when an option is refused: an option of another command is named as such, an unknown one with the
// closest the command takes; then where the command's own options are listed.

/** Whether a token names an option that takes a value (so the next token is not a command). */
function takesValue(token: string): boolean {
  if (token.includes('=')) return false;
  const table: Record<string, OptionSpec> = OPTION_TABLE;
  const spec = token.startsWith('--')
    ? table[token.slice(2)]
    : Object.values(table).find((s) => s.short !== undefined && `-${s.short}` === token);
  return spec?.type === 'string';
}

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
 * `validate -f x.yaml`, and the simulator too), and the other arguments: the first command word that
 * is not an option's value. What follows it is the command's, even a command word (the simulator's
 * options may take one as their value).
 */
export function splitCommand(argv: string[]): { command: Command; args: string[] } {
  const index = argv.findIndex((token, i) => {
    const before = argv[i - 1];
    return COMMANDS.has(token) && !(before !== undefined && takesValue(before));
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
    throw new UsageError(explainParseError(error as Error, command, Object.keys(options)));
  }
}

/** The commands, as messages name them: `sync` is a run, websites-sync without a command. */
const label = (command: string) => (command === 'sync' ? 'a run' : command);

const listed = (items: string[]) => items.join(', ').replace(/, ([^,]+)$/, ' and $1');

function helpOf(command: string): string {
  return command === 'sync' ? 'websites-sync --help' : `websites-sync ${command} --help`;
}

/** The websites-sync option a flag names (`--once`, `-f`), whichever command takes it. */
function optionOf(flag: string): [string, OptionSpec] | undefined {
  const entries = Object.entries(OPTION_TABLE) as Array<[string, OptionSpec]>;
  if (flag.startsWith('--')) return entries.find(([name]) => `--${name}` === flag);
  return entries.find(([, spec]) => spec.short !== undefined && `-${spec.short}` === flag);
}

/**
 * parseArgs' error for `command`, whose own options are `accepted` (long names). The flag is named as
 * the user typed it.
 */
export function explainParseError(error: Error, command: string, accepted: readonly string[]): string {
  const see = `See ${helpOf(command)}.`;
  const flag = /Unknown option '(-{1,2}[^'=]+)'/.exec(error.message)?.[1];
  if (!flag) return `${error.message.replace(/\.?$/, '.')} ${see}`;
  const elsewhere = optionOf(flag);
  if (elsewhere) {
    const [name, spec] = elsewhere;
    const subject = command === 'sync' ? 'a run (websites-sync without a command)' : `the ${command} command`;
    const shown = flag === `--${name}` ? flag : `${flag} (--${name})`;
    return `${shown} is not accepted by ${subject}; only by ${listed(spec.commands.map(label))}. ${see}`;
  }
  const near = suggest(flag.replace(/^-+/, ''), accepted);
  return `unknown option ${flag}${near ? `; did you mean --${near}?` : '.'} ${see}`;
}
