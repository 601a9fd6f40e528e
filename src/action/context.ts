import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { context as githubContext } from '@actions/github';
import { type Config, type Io, parseConfig, showing } from '../cli/index.js';
import { Redactor } from '../model/index.js';
import type { BranchStore } from './branch.js';
import { connectGitHub, type GitHub, type Repo } from './github.js';
import type { ActionInputs } from './inputs.js';

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
  github: GitHub;
  /** The run's page, where its job summary is. */
  runUrl: string;
  workspace: string;
  /** A directory of this run for the files the Action writes (plans). */
  temp: string;
  /** The settings of a run with these flags added to the inputs' (the CLI's own parser). */
  config(flags: string[]): Readonly<Config>;
  /** The state's directory (the state file's), kept on `inputs.stateBranch` unless that is ''. */
  stateDir(): string;
  store(branch: string): BranchStore;
}

/** An Io on the process's streams through one redactor, stderr also kept. */
export function actionIo(env: NodeJS.ProcessEnv): Io & { written(): string } {
  const redactor = new Redactor();
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
    github: connectGitHub(inputs.githubToken, ctx.apiUrl, githubTimeoutMs(config)),
    runUrl,
    workspace,
    temp,
    config,
    stateDir: () => dirname(resolve(workspace, config(['--dry-run']).stateFile)),
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
