import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { FakeGitHub } from './github-api.js';

// Runs the committed bundle of the GitHub Action as the runner does: `node action/index.mjs` in the
// workspace, each input as an INPUT_<NAME> variable (action.yml's defaults for those not given), the
// event as a JSON file at GITHUB_EVENT_PATH, and the outputs and job summary as files.

export const ACTION = fileURLToPath(new URL('../../action/index.mjs', import.meta.url));
const ACTION_YML = fileURLToPath(new URL('../../action.yml', import.meta.url));

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { description: string }>;
}

export function actionYml(): ActionYml {
  return parse(readFileSync(ACTION_YML, 'utf8')) as ActionYml;
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

export interface Runner {
  /** The checkout: a clone of `origin` (a local bare repository). */
  workspace: string;
  temp: string;
  repository: string;
  apiUrl: string;
  token: string;
  env?: Record<string, string>;
}

/** GITHUB_OUTPUT as @actions/core writes it: `name<<DELIMITER`, the value, `DELIMITER`. */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!match) continue;
    const [, name = '', delimiter] = match;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== delimiter; i += 1) value.push(lines[i] ?? '');
    outputs[name] = value.join('\n');
  }
  return outputs;
}

let runs = 0;

export async function runAction(
  runner: Runner,
  event: { name: string; payload: unknown; sha: string },
  inputs: Record<string, string>,
): Promise<ActionRun> {
  runs += 1;
  const dir = join(runner.temp, `run-${runs}`);
  mkdirSync(dir, { recursive: true });
  const files = {
    output: join(dir, 'output'),
    summary: join(dir, 'summary.md'),
    event: join(dir, 'event.json'),
  };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  writeFileSync(files.event, JSON.stringify(event.payload));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: runner.temp,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_SHA: event.sha,
    GITHUB_REF: event.name === 'pull_request' ? 'refs/pull/7/merge' : 'refs/heads/main',
    GITHUB_REPOSITORY: runner.repository,
    GITHUB_API_URL: runner.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: String(4000 + runs),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: runner.workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    RUNNER_TEMP: dir,
    ...runner.env,
  };
  const defaults = actionYml().inputs;
  for (const [name, spec] of Object.entries(defaults)) {
    const value = inputs[name] ?? (spec.default?.includes('github.token') ? runner.token : spec.default);
    if (value !== undefined) env[`INPUT_${name.toUpperCase()}`] = value;
  }
  const child = spawn(process.execPath, [ACTION], {
    cwd: runner.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    code,
    stdout,
    stderr,
    outputs: readOutputs(readFileSync(files.output, 'utf8')),
    summary: readFileSync(files.summary, 'utf8'),
  };
}

export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A repository with `origin` a local bare one, the manifest committed and pushed to main. */
export function repositoryWith(dir: string, manifest: string): { workspace: string; origin: string } {
  const origin = join(dir, 'origin.git');
  git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
  git(dir, 'clone', '-q', origin, 'work');
  const workspace = join(dir, 'work');
  writeFileSync(join(workspace, 'websites.yaml'), manifest);
  git(workspace, 'checkout', '-q', '-b', 'main');
  git(workspace, 'add', '.');
  git(workspace, 'commit', '-q', '-m', 'manifest');
  git(workspace, 'push', '-q', 'origin', 'main');
  return { workspace, origin };
}

/** A commit of `manifest` on the checkout (a pull request's head, or main after merge); its sha. */
export function commitManifest(workspace: string, manifest: string, message: string): string {
  writeFileSync(join(workspace, 'websites.yaml'), manifest);
  git(workspace, 'add', '.');
  git(workspace, 'commit', '-q', '--allow-empty', '-m', message);
  return git(workspace, 'rev-parse', 'HEAD');
}

/**
 * A runner for acme/sites: its checkout a fresh repository holding `manifest` (with `origin` a local
 * bare one), GitHub's API the loopback one.
 */
export function runnerFor(
  dir: string,
  github: FakeGitHub,
  manifest: string,
  { token, env = {} }: { token: string; env?: Record<string, string> },
): { runner: Runner; origin: string } {
  const repo = repositoryWith(dir, manifest);
  const runner = {
    workspace: repo.workspace,
    temp: dir,
    repository: 'acme/sites',
    apiUrl: github.url,
    token,
    env,
  };
  return { runner, origin: repo.origin };
}

/** Pull request #number merged: main gets `manifest` as a merge commit GitHub knows belongs to it; its sha. */
export function mergePullRequest(
  runner: Runner,
  github: FakeGitHub,
  { number, headSha, manifest }: { number: number; headSha: string; manifest: string },
): string {
  const before = git(runner.workspace, 'rev-parse', 'origin/main');
  git(runner.workspace, 'checkout', '-q', 'main');
  const sha = commitManifest(runner.workspace, manifest, `Merge pull request #${number}`);
  git(runner.workspace, 'push', '-q', 'origin', 'main');
  github.pullsOfCommit.set(sha, [
    {
      number,
      state: 'closed',
      merged_at: github.now.toISOString(),
      merge_commit_sha: sha,
      head: { sha: headSha, ref: 'add-shop' },
      base: { sha: before, ref: 'main' },
    },
  ]);
  return sha;
}
