import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import * as core from '@actions/core';
import { context as githubContext } from '@actions/github';
import { type Config, type Io, parseConfig, showing, UsageError } from '../cli/index.js';
import { MIN_SECRET_LENGTH, Redactor } from '../model/index.js';
import { backupPathFor } from '../state/index.js';
import { type BranchStore, trackedUnder } from './branch.js';
import { connectGitHub, type GitHub, type Repo } from './github.js';
import type { ActionInputs } from './inputs.js';
import { DEFAULT_MANIFEST, manifestName } from './manifest-keys.js';

// What every job of the Action works with: its inputs, the event, the GitHub client, where its files
// go, and one Io whose every output passes through the redactor (and whose stderr is kept, to quote a
// failure in the comment or the job summary).

export interface JobContext {
  inputs: ActionInputs;
  io: Io & { written(): string };
  repo: Repo;
  eventName: string;
  payload: typeof githubContext.payload;
  sha: string;
  /** The manifest's path in the checkout (`/`-separated): what the comments, issue and plans are named by. */
  manifest: string;
  github: GitHub;
  /** The run's page, where its job summary is. */
  runUrl: string;
  workspace: string;
  /** A directory of this run for the files the Action writes (plans). */
  temp: string;
  /** The settings of a run with these flags added to the inputs' (the CLI's own parser). */
  config(flags: string[]): Readonly<Config>;
  /**
   * The state's directory (the state file's), kept on `inputs.stateBranch` unless that is ''; refused
   * when that branch would keep more than the state (see keptStateDir).
   */
  stateDir(): Promise<string>;
  store(branch: string): BranchStore;
}

/** An Io on the process's streams through one redactor, stderr also kept. */
/**
 * The Action's redactor: every secret the tool learns, wherever it comes from (an input, the job's
 * environment, a key file, the manifest's passwords), is also given to GitHub's own log masking, which
 * masks what the runner prints beside the tool: one way in for both, so neither misses one.
 */
class GitHubMaskingRedactor extends Redactor {
  override add(secret: string | undefined): string | undefined {
    const added = super.add(secret);
    // GitHub masks every occurrence, inside words too: a short one (a password `ab1`) would make the
    // log unreadable, so it is left to this redactor, which masks it where it stands as a word.
    if (added !== undefined && added.length >= MIN_SECRET_LENGTH) core.setSecret(added);
    return added;
  }
}

export function actionIo(env: NodeJS.ProcessEnv): Io & { written(): string } {
  const redactor = new GitHubMaskingRedactor();
  let kept = '';
  const stderr = showing(process.stderr, redactor);
  const keeping = Object.create(stderr) as NodeJS.WritableStream;
  keeping.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') kept += chunk;
    return (stderr.write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as NodeJS.WritableStream['write'];
  return {
    stdout: showing(process.stdout, redactor),
    stderr: keeping,
    env,
    redactor,
    written: () => redactor.show(kept),
  };
}

export async function jobContext(
  inputs: ActionInputs,
  io: JobContext['io'],
  env: NodeJS.ProcessEnv,
): Promise<JobContext> {
  const workspace = resolve(env.GITHUB_WORKSPACE ?? process.cwd());
  const temp = join(resolve(env.RUNNER_TEMP ?? workspace), `websites-sync-${env.GITHUB_RUN_ID ?? 'run'}`);
  await mkdir(temp, { recursive: true });
  const ctx = githubContext;
  const runUrl = `${ctx.serverUrl}/${ctx.repo.owner}/${ctx.repo.repo}/actions/runs/${ctx.runId}/attempts/${ctx.runAttempt || 1}`;
  // The key from its input, else from the job's environment; the log format the bundle can write.
  const runEnv = {
    ...env,
    WEBSITES_SYNC_API_KEY: inputs.apiKey || env.WEBSITES_SYNC_API_KEY,
    WEBSITES_SYNC_PREVIOUS_API_KEY: inputs.previousApiKey || env.WEBSITES_SYNC_PREVIOUS_API_KEY,
    WEBSITES_SYNC_LOG_FORMAT: 'json',
    // From a variable, as a URL with a password must come (never a flag a process list would show).
    ...(inputs.state ? { WEBSITES_SYNC_STATE: inputs.state } : {}),
  };
  const config = (flags: string[]) => parseConfig(['--once', ...flags, ...inputs.flags], runEnv);
  return {
    inputs,
    io,
    repo: ctx.repo,
    eventName: ctx.eventName,
    payload: ctx.payload,
    sha: ctx.sha,
    manifest: manifestName(workspace, manifestPath(inputs, runEnv)),
    github: connectGitHub(inputs.githubToken, ctx.apiUrl, githubTimeoutMs(config), (text) =>
      io.redactor.show(text),
    ),
    runUrl,
    workspace,
    temp,
    config,
    stateDir: async () => {
      const { stateFile, backupFile } = config(['--dry-run']);
      const state = resolve(workspace, stateFile);
      const own = [state, resolve(workspace, backupPathFor(stateFile, backupFile))];
      if (inputs.stateBranch) await keptStateDir(workspace, dirname(state), own);
      return dirname(state);
    },
    store: (branch) => ({ cwd: workspace, branch, timeoutMs: inputs.gitTimeoutMs }),
  };
}

/**
 * The `timeout` input bounds GitHub's requests too; when the inputs cannot be read (the job fails on
 * that anyway, and may still comment), its default.
 */
function githubTimeoutMs(config: (flags: string[]) => Config): number {
  try {
    return config(['--dry-run']).timeoutMs;
  } catch {
    return parseConfig(['--once'], {}).timeoutMs;
  }
}

/**
 * The manifest's path as the run reads it, from the manifest input (or the job's environment) alone:
 * a failure of another input still names the comment that says so after the right manifest. The
 * default when even that cannot be read (the job fails on it anyway).
 */
function manifestPath(inputs: ActionInputs, env: NodeJS.ProcessEnv): string {
  try {
    const flags = inputs.flags.filter((flag) => flag.startsWith('--manifest='));
    return parseConfig(['--once', ...flags], env).manifest;
  } catch {
    return DEFAULT_MANIFEST;
  }
}

/**
 * A directory the state branch keeps must hold the state and nothing else: the branch keeps every file
 * in it (ignored ones too: a credentials file another step left), and its files are written over it in
 * the next job. So it is refused when it is the checkout, holds the checkout, lies outside it or in
 * `.git`, or holds a file of the repository (the manifest would then be the branch's old one) other
 * than the state's own (`own`: the state file, with the files named after it, and the backup file),
 * which a repository that kept its state itself before may hold. Judged where it really is: a link
 * in the checkout (a pull request can add one) leads where it leads.
 */
async function keptStateDir(checkout: string, stateDir: string, own: string[]): Promise<void> {
  const [workspace, dir] = [await realDir(checkout), await realDir(stateDir)];
  let why: string | undefined;
  if (under(dir, workspace))
    why = dir === workspace ? 'the checkout itself' : 'a directory that holds the checkout';
  // Outside the checkout (the runner's temporary directory, a sibling): what else is there is nobody's
  // to say, and the runner keeps credentials in such places.
  else if (!under(workspace, dir)) why = 'outside the checkout';
  else if (under(join(workspace, '.git'), dir)) why = "inside the repository's .git";
  else {
    const isOwn = (file: string) =>
      own.some((written) => {
        const path = join(workspace, relative(checkout, written));
        const f = resolve(workspace, file);
        return f === path || f.startsWith(`${path}.`);
      });
    const tracked = (await trackedUnder(workspace, dir)).filter((file) => !isOwn(file));
    if (tracked.length > 0)
      why = `a directory with files of the repository (${tracked.slice(0, 3).join(', ')}${tracked.length > 3 ? ', …' : ''})`;
  }
  if (why === undefined) return;
  throw new UsageError(
    `input state-file: the state's directory, ${dir}, is ${why}; state-branch keeps that whole directory (every file in it is committed, and the branch's files are written over it): give the state a directory of its own, such as .websites-sync/state.json (the default)`,
  );
}

/** `path` with its links resolved, as far as it exists (the rest, not made yet, as it is written). */
async function realDir(path: string): Promise<string> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = dirname(path);
  return parent === path ? path : join(await realDir(parent), basename(path));
}

/** Whether `path` is `dir` or lies in it (both resolved). */
function under(dir: string, path: string): boolean {
  const inside = relative(dir, path);
  return inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}
