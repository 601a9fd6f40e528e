import { parseArgs } from 'node:util';
import { suggest } from '../model/index.js';
import { UsageError } from './errors.js';
import { type Given, OPTION_TABLE, type OptionCommand, type OptionSpec } from './options.js';

// The command line's words: which command, the options as the user typed them, and what a person reads
// when an option is refused: an option of another command is named as such, an unknown one with the
// closest the command takes; then where the command's own options are listed.

export type Command =
  | 'sync'
  | 'validate'
  | 'export'
  | 'restore'
  | 'schema'
  | 'state'
  | 'simulator'
  | 'help'
  | 'version';

export const COMMANDS = new Set(['validate', 'export', 'restore', 'schema', 'state', 'simulator']);

const entries = Object.entries(OPTION_TABLE) as Array<[string, OptionSpec]>;

/** The options a command accepts, as node:util parseArgs takes them. */
export function parseArgsOptions(
  command: OptionCommand,
): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, spec] of entries) {
    if (spec.commands.includes(command)) {
      options[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
    }
  }
  return options;
}

/** Whether a token names an option that takes a value (so the next token is not a command). */
export function takesValue(token: string): boolean {
  if (token.includes('=')) return false;
  const spec = token.startsWith('--')
    ? (OPTION_TABLE as Record<string, OptionSpec>)[token.slice(2)]
    : entries.find(([, s]) => s.short !== undefined && `-${s.short}` === token)?.[1];
  return spec?.type === 'string';
}

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
  const missing = /Option '(?:-\w, )?--([\w-]+) <value>' argument missing/.exec(error.message)?.[1];
  const spec = missing === undefined ? undefined : (OPTION_TABLE as Record<string, OptionSpec>)[missing];
  if (spec) {
    const help = spec.helpFor?.[command as OptionCommand] ?? spec.help;
    return `--${missing} needs a value: ${spec.arg ?? 'a value'}, ${help}. ${see}`;
  }
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

/**
 * A word where a command was expected: a manifest's path points at -f, `help` at --help, anything
 * else at the commands there are.
 */
export function explainStrayWord(command: Command, word: string): string {
  const invocation = command === 'sync' ? 'websites-sync' : `websites-sync ${command}`;
  if (word === 'help') {
    return 'unknown command "help"; for help: websites-sync --help, or websites-sync COMMAND --help.';
  }
  if (/\.(ya?ml|json)$/i.test(word) || word.includes('/')) {
    return `"${word}" is not a command; the manifest is given with -f: ${invocation} -f ${word}`;
  }
  const near = suggest(word, [...COMMANDS]);
  return `unknown command "${word}"${near ? `; did you mean "${near}"?` : '.'} Commands are ${listed([...COMMANDS])}.`;
}
