import { OPTION_TABLE, type OptionName, UsageError } from '../cli/index.js';
import { parseDurationMs } from '../model/index.js';
import { isPostgresUrl } from '../state/index.js';

// The Action's inputs. Those named like an option of the command line (src/cli/options.ts) become that
// option, read by the CLI's own parser: adding an option to the Action is one line in action.yml. The
// others are the Action's own (which job, the GitHub token, where the state and plans are kept).

export const COMMANDS = ['plan', 'apply', 'drift'] as const;
export type ActionCommand = (typeof COMMANDS)[number];

export interface ActionInputs {
  command: ActionCommand;
  /** The API key, from a secret; empty when the job has none (a pull request from a fork). */
  apiKey: string;
  /** The key before a rotation, from a secret: only recognises fingerprints recorded with it; never sent. */
  previousApiKey: string;
  githubToken: string;
  /** The branch the state directory is kept on; '' keeps it where `state-file` points, nothing more. */
  stateBranch: string;
  /** `state`: a postgres:// URL, from a secret, when the state is in PostgreSQL (then no state branch). */
  state: string;
  /** The branch the signed plans are kept on, one file per pull request head commit and manifest. */
  planBranch: string;
  /** `apply` on a push without a reviewed plan: apply a fresh plan (true) or fail (false). */
  applyUnreviewed: boolean;
  driftLabel: string;
  /** How long one fetch or push of the state and plan branches may take (`git-timeout`). */
  gitTimeoutMs: number;
  /** The command-line options the other inputs stand for, as flags. */
  flags: string[];
}

/** The Action's own inputs; every other input is the command line's option of that name. */
export const OWN_INPUTS = [
  'command',
  'api-key',
  'previous-api-key',
  'github-token',
  'state-branch',
  'state',
  'plan-branch',
  'apply-unreviewed',
  'drift-label',
  'git-timeout',
] as const;
/** Options each job sets itself, or that mean nothing in a job (the daemon's, help). */
const SET_BY_THE_ACTION = new Set<string>([
  'once',
  'dry-run',
  'out',
  'plan',
  'output',
  'detailed-exitcode',
  'adopt',
  'listen',
  'interval',
  'schema',
  // The bundle writes JSON log lines (pino-pretty is not in it); the runner's log is no terminal.
  'log-format',
  'help',
  'version',
]);

/** The inputs as the runner hands them over (`INPUT_<NAME>` variables), every problem named by input. */
export function readInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const given = givenInputs(env);
  const own = (name: (typeof OWN_INPUTS)[number]) => given.get(name) ?? '';
  const command = own('command');
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`input command: "${command}" is not a job; use plan, apply or drift`);
  }
  const flags: string[] = [];
  for (const [name, value] of given) {
    if ((OWN_INPUTS as readonly string[]).includes(name)) continue;
    flags.push(...flagsOf(name, value));
  }
  const state = own('state');
  if (state && !isPostgresUrl(state)) {
    throw new UsageError(
      `input state: "${state}" is not a postgres:// URL; a state file is the state-file input (kept on state-branch)`,
    );
  }
  return {
    command: command as ActionCommand,
    apiKey: own('api-key'),
    previousApiKey: own('previous-api-key'),
    githubToken: own('github-token'),
    // A state in PostgreSQL is shared where it is: no branch keeps a copy.
    stateBranch: state ? '' : own('state-branch'),
    state,
    planBranch: own('plan-branch') || 'websites-sync-plans',
    applyUnreviewed: booleanInput('apply-unreviewed', own('apply-unreviewed') || 'false'),
    driftLabel: driftLabel(own('drift-label') || 'websites-sync-drift'),
    gitTimeoutMs: gitTimeout(own('git-timeout') || '5m'),
    flags,
  };
}

/** Every input with a value, by name: the runner names the variable `INPUT_` and the name upper-cased. */
function givenInputs(env: NodeJS.ProcessEnv): Map<string, string> {
  const given = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('INPUT_') || value === undefined || value.trim() === '') continue;
    given.set(key.slice('INPUT_'.length).toLowerCase().replace(/ /g, '_'), value.trim());
  }
  return given;
}

function flagsOf(name: string, value: string): string[] {
  if (SET_BY_THE_ACTION.has(name)) throw new UsageError(`input ${name}: set by the action itself`);
  const spec = (OPTION_TABLE as Record<string, (typeof OPTION_TABLE)[OptionName] | undefined>)[name];
  if (!spec || !(spec.commands as readonly string[]).includes('sync')) {
    throw new UsageError(`input ${name}: this version of websites-sync has no option --${name}`);
  }
  if (spec.type === 'boolean') return booleanInput(name, value) ? [`--${name}`] : [];
  return [`--${name}=${value}`];
}

/**
 * The drift issue is found by listing the open issues with this label, and GitHub reads the list's
 * `labels` as comma-separated names that must all match: a label with a comma would never find the
 * issue, and every run would open another.
 */
function driftLabel(value: string): string {
  if (value.includes(',')) {
    throw new UsageError(
      `input drift-label: "${value}" holds a comma, which GitHub's issue search reads as two labels; use one label without commas`,
    );
  }
  return value;
}

const GIT_TIMEOUT = { minMs: 1_000, maxMs: 3_600_000 };

function gitTimeout(value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined || ms < GIT_TIMEOUT.minMs || ms > GIT_TIMEOUT.maxMs) {
    throw new UsageError(`input git-timeout: "${value}" is not a duration from 1s to 1h (e.g. 5m)`);
  }
  return ms;
}

/** As the YAML 1.2 core schema (and @actions/core's getBooleanInput) spells a boolean. */
function booleanInput(name: string, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new UsageError(`input ${name}: "${value}" is not a boolean; use true or false`);
}
