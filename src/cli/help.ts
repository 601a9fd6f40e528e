import { OPTION_TABLE, type OptionCommand, type OptionName, type OptionSpec } from './options.js';

const HELP_COLUMN = 29;
const WIDTH = 100;

/** The "Options:" lines of a command's help, from the table. */
function optionsHelp(command: OptionCommand): string {
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(OPTION_TABLE) as Array<[OptionName, OptionSpec]>) {
    if (!spec.commands.includes(command)) continue;
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.arg ? ` ${spec.arg}` : ''}`;
    const notes = [
      spec.env,
      spec.default ? `default ${spec.default}` : spec.defaultNote && `default ${spec.defaultNote}`,
    ]
      .filter(Boolean)
      .join('; ');
    const help = spec.helpFor?.[command] ?? spec.help;
    const text = notes ? `${help} (${notes})` : help;
    const head = `  ${flag}`;
    const words = text.split(' ');
    let line =
      head.length + 1 < HELP_COLUMN ? head.padEnd(HELP_COLUMN) : `${head}\n${''.padEnd(HELP_COLUMN)}`;
    let width = line.length - line.lastIndexOf('\n') - 1;
    let first = true;
    for (const word of words) {
      if (!first && width + word.length + 1 > WIDTH) {
        line += `\n${''.padEnd(HELP_COLUMN)}`;
        width = HELP_COLUMN;
        first = true;
      }
      line += `${first ? '' : ' '}${word}`;
      width += word.length + (first ? 0 : 1);
      first = false;
    }
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

export const HELP = `websites-sync — keep the tracked websites of an analytics account equal to websites.yaml

Usage:
  websites-sync [options]             daemon: reconcile at start, on change, every --interval
  websites-sync --dry-run             observe mode: a daemon that only logs its plans
  websites-sync --once                reconcile once and exit
  websites-sync --once --dry-run      print the plan, change nothing
  websites-sync --once --dry-run --out FILE
                                      also save the plan for review (JSON, no secret)
  websites-sync --once --plan FILE    apply exactly that saved plan, unless it is stale
  websites-sync validate              check the manifest offline (no network, no key needed)
  websites-sync export [--out FILE]   write a manifest of the account as it is now (onboarding);
                                      an existing FILE is replaced only with --force
  websites-sync restore [DOMAIN…]     print manifest entries for deleted websites, from the backup
                                      file (settings only: statistics are not restorable)
  websites-sync schema                print the manifest's JSON Schema, for editors:
                                      websites-sync schema > websites.schema.json
  websites-sync state show           who holds the state's lock, protections, pending deletes
  websites-sync state migrate --from PATH|URL --to PATH|URL
                                      copy a state and its backups between a file and PostgreSQL
  websites-sync simulator [--port N]  run the local simulator of the service (see --help there)

Options:
${optionsHelp('sync')}
Per website (or under defaults:) in the manifest: protect: true (never deleted, even after its
entry is removed, until a manifest lists it with protect: false), observe: true (compared and
shown, never written), ignore_fields: [email, ...] (never compared, shown or sent). An entry with
allow_delete_with_traffic: true (its domain and nothing else) is a website to delete, with prune,
although it still has visitors (docs/explanation/guards.md).

Exit status: 0 success or no changes; 1 error (invalid manifest, authentication, failed
operations, creates beyond the account's plan limit, a stale saved plan, a key rotated part-way); 2
changes pending (--dry-run --detailed-exitcode); 3 refused by the mass-delete guard, or a delete of a
website protected by a state file the run could not use (kept aside as <state file>.discarded-<time>;
restore it, or --force), or deletes of websites with visitors (or, traffic_guard: strict, unknown
traffic) refused by the traffic guard (the rest applied; allow_delete_with_traffic: true or --force);
130 / 143 stopped by SIGINT / SIGTERM
(operations in flight finish first).
`;

/** `COMMAND --help`: what the command does and the options it takes. */
const COMMAND_HELP: Partial<Record<string, string>> = {
  validate: `websites-sync validate [-f PATH]

Checks the manifest offline: no network, no base URL or key needed. Prints every problem with its
file, line and column, then the warnings; exits 1 when there is an error.

${optionsHelp('validate')}`,
  export: `websites-sync export [--out FILE [--schema]] [--force]

Writes a manifest of the account's websites as they are now (to adopt the tool on an existing
account): to stdout, or to FILE (an existing FILE is replaced only with --force). Needs the base URL
and the key, like a run.

${optionsHelp('export')}`,
  schema: `websites-sync schema > websites.schema.json

Prints the JSON Schema of the manifest format of this version, for editors: saved beside the
manifest, it is what the manifest's first line points at,

  # yaml-language-server: $schema=./websites.schema.json

and gives completion, descriptions and checks as you type: unknown keys, values (privacy, booleans,
durations), IP addresses, parameter names, domain syntax. \${NAME} references are accepted wherever
validate accepts them. Reads no manifest, needs no base URL or key. validate remains the full check
(duplicates, password against privacy, what depends on the environment).

${optionsHelp('schema')}`,
  restore: `websites-sync restore [DOMAIN…] [--backup-file PATH]

Prints manifest entries (valid for validate) for deleted websites, from the latest backup of each in
the backup file; all of them without DOMAIN. Only settings come back: statistics are not restorable.

${optionsHelp('restore')}`,
  state: `websites-sync state show | state migrate --from PATH|URL --to PATH|URL [--force]

show: for a state file or a PostgreSQL state, who holds the lock (and which daemon leads), which
websites are protected, and which deletes are pending and since when.

migrate: copies a state and the backups of deleted websites from a file into PostgreSQL or back,
losing nothing (fingerprints stay valid). A target that holds anything is replaced only with --force.
Either side left out is the --state location. See docs/guides/postgres-state.md.

${optionsHelp('state')}`,
};

export function helpFor(command: string | undefined): string {
  return (command && COMMAND_HELP[command]) ?? HELP;
}
