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
  websites-sync simulator [--port N]  run the local simulator of the service (see --help there)

Options:
  -f, --manifest PATH        desired state (WEBSITES_SYNC_MANIFEST, default ./websites.yaml)
      --base-url URL         the service, paths are {URL}/api/v1/... (WEBSITES_SYNC_BASE_URL)
      --api-key-file PATH    read the API key from a file (WEBSITES_SYNC_API_KEY_FILE);
                             otherwise WEBSITES_SYNC_API_KEY. Never on the command line.
      --state-file PATH      write-only field fingerprints (WEBSITES_SYNC_STATE_FILE,
                             default ./.websites-sync-state.json)
      --backup-file PATH     the settings of every deleted website, appended before the delete
                             (WEBSITES_SYNC_BACKUP_FILE, default .websites-sync-deleted.jsonl
                             beside the state file); read by restore
      --notify-url URL       POST a JSON event (with a "text" field, for Slack-compatible
                             webhooks) on drift corrected, failures, refusals, scheduled or due
                             deletes, manifest invalid/valid (WEBSITES_SYNC_NOTIFY_URL; https://,
                             or http:// to this machine)
      --concurrency N        requests in flight at most (WEBSITES_SYNC_CONCURRENCY, default 4)
      --interval DURATION    daemon resync period (WEBSITES_SYNC_INTERVAL, default 5m)
      --once                 reconcile once and exit
      --dry-run              plan only, change nothing
      --prune                allow deletes (as prune: true in the manifest)
      --delete-delay DURATION
                             delete a website only after every run for that long planned it
                             (WEBSITES_SYNC_DELETE_DELAY; overrides delete_delay: in the
                             manifest; default 0: at once)
      --force                override the mass-delete guard
      --adopt                with --once: websites already on the account whose exclude_params and
                             password were never sent by this tool are assumed to match the
                             manifest (recorded, not sent); onboarding costs only the listing
  -o, --output FORMAT        plan format on stdout: text, json or markdown (default text)
      --out FILE             with --dry-run: also save the plan (JSON, no secret) for --plan
      --plan FILE            apply exactly this saved plan; exit 1 ("stale plan") if the account,
                             the manifest or a password changed since it was saved
      --detailed-exitcode    with --dry-run: exit 2 when there are changes
      --listen HOST:PORT     daemon: /healthz, /readyz and /metrics (WEBSITES_SYNC_LISTEN)
      --timeout DURATION     per request: connect, headers and body (default 30s)
      --rate-window DURATION the service's rate-limit window, which it does not announce
                             (WEBSITES_SYNC_RATE_WINDOW; default 1m): pacing stays inside it
      --rate-budget PERCENT  share of the key's rate limit reads may use, 1-100
                             (WEBSITES_SYNC_RATE_BUDGET; default 50 for the daemon's resyncs,
                             100 for --once); changes are always applied at the whole limit
      --log-level LEVEL      fatal, error, warn, info, debug, trace, silent
                             (WEBSITES_SYNC_LOG_LEVEL, default info; warn for --once on a terminal)
      --log-format FORMAT    json or pretty (WEBSITES_SYNC_LOG_FORMAT, default pretty on a terminal)
      --allow-insecure-http  allow a plain http:// base URL to a non-loopback host
  -h, --help                 this help
  -V, --version              the version

Per website (or under defaults:) in the manifest: protect: true (never deleted, even after its
entry is removed, until a manifest lists it with protect: false), observe: true (compared and
shown, never written), ignore_fields: [email, ...] (never compared, shown or sent).

Exit status: 0 success or no changes; 1 error (invalid manifest, authentication, failed
operations, a stale saved plan); 2 changes pending (--dry-run --detailed-exitcode); 3 refused by
the mass-delete guard; 130 / 143 stopped by SIGINT / SIGTERM (operations in flight finish first).
`;

/** `COMMAND --help`: what the command does and the options it takes. */
const COMMAND_HELP: Partial<Record<string, string>> = {
  validate: `websites-sync validate [-f PATH]

Checks the manifest offline: no network, no base URL or key needed. Prints every problem with its
file, line and column, then the warnings; exits 1 when there is an error.

  -f, --manifest PATH   the manifest (WEBSITES_SYNC_MANIFEST, default ./websites.yaml)
`,
  export: `websites-sync export [--out FILE [--schema]] [--force]

Writes a manifest of the account's websites as they are now (to adopt the tool on an existing
account): to stdout, or to FILE (an existing FILE is replaced only with --force). Needs the base URL
and the key, like a run.

      --out FILE           where the manifest goes (stdout without it)
  -o, --output yaml        the format: yaml, the only one (as -o means a format everywhere)
      --schema             also write websites.schema.json beside FILE, the editor schema its first
                           line points at (an older one is updated; another file of that name is
                           replaced only with --force)
      --force              replace an existing FILE
      --base-url, --api-key-file, --concurrency, --timeout, --rate-window, --rate-budget, --log-level,
      --log-format: as for a run
`,
  schema: `websites-sync schema > websites.schema.json

Prints the JSON Schema of the manifest format of this version, for editors: saved beside the
manifest, it is what the manifest's first line points at,

  # yaml-language-server: $schema=./websites.schema.json

and gives completion, descriptions and checks as you type: unknown keys, values (privacy, booleans,
durations), IP addresses, parameter names, domain syntax. \${NAME} references are accepted wherever
validate accepts them. Reads no manifest, needs no base URL or key. validate remains the full check
(duplicates, password against privacy, what depends on the environment).
`,
  restore: `websites-sync restore [DOMAIN…] [--backup-file PATH]

Prints manifest entries (valid for validate) for deleted websites, from the latest backup of each in
the backup file; all of them without DOMAIN. Only settings come back: statistics are not restorable.

      --backup-file PATH   (WEBSITES_SYNC_BACKUP_FILE, default .websites-sync-deleted.jsonl beside the
                           state file)
      --state-file PATH    locates the default backup file
`,
};

export function helpFor(command: string | undefined): string {
  return (command && COMMAND_HELP[command]) ?? HELP;
}
