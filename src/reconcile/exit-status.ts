// Every exit status of the one-shot commands, described once: `summariseOutcome` and the CLI's signal
// handling return these codes, and docs/reference/exit-codes.md is generated from this table
// (scripts/generate-docs.mjs), so the documented meaning cannot drift from the code.

export interface ExitStatus {
  readonly code: number;
  /** What a user reads in the docs. */
  readonly meaning: string;
}

export const EXIT_STATUSES = [
  { code: 0, meaning: 'success, or nothing to change' },
  {
    code: 1,
    meaning:
      "error: invalid manifest, bad options, the API key refused (or rotated part-way), an operation that failed after retries, creates beyond the account's plan limit (not sent; also a `--dry-run --detailed-exitcode` whose creates do not fit), a stale saved plan (a delete in it gained traffic, among others) or one not applied because a delete's traffic got no answer, a run stopped by a shutdown of the daemon before every operation was attempted",
  },
  { code: 2, meaning: 'changes pending (only with `--dry-run --detailed-exitcode`)' },
  {
    code: 3,
    meaning:
      'refused by a guard: the mass-delete guard, an empty `websites:` list that would delete, or a delete of a website protected by a state file the run could not use (nothing changed); or the traffic guard refused deletes of websites with visitors, with traffic unknown under `traffic_guard: strict`, or whose traffic read got no answer (the rest of the plan applied, docs/explanation/guards.md)',
  },
  {
    code: 130,
    meaning: '`--once` stopped by `SIGINT` (Ctrl-C): 128 + the signal number, as a shell reports it',
  },
  { code: 143, meaning: '`--once` stopped by `SIGTERM`' },
] as const satisfies readonly ExitStatus[];

export type ExitCode = (typeof EXIT_STATUSES)[number]['code'];
