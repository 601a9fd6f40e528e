import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDuration } from '../model/index.js';

// Files kept on a branch of the repository (the state directory, the signed plans), through the git of
// the checkout: `actions/checkout` leaves the job's token in its configuration, so `origin` can be
// fetched and pushed. A branch is never checked out: commits are made from a private index, on top of
// the branch's tip, and a push refused because the tip moved (another job pushed meanwhile) is made
// again on the new tip, so nothing either job wrote is lost.

const ATTEMPTS = 5;
/** Git's tree of nothing: a branch is not created for it. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const BOT = [
  '-c',
  'user.name=github-actions[bot]',
  '-c',
  'user.email=41898282+github-actions[bot]@users.noreply.github.com',
];

export interface BranchStore {
  /** The work tree of the checkout (`GITHUB_WORKSPACE`). */
  cwd: string;
  branch: string;
  /**
   * How long a fetch or a push may take (the `git-timeout` input): a remote that stops answering would
   * otherwise hold the job until GitHub cancels it, hours later. Unbounded when undefined.
   */
  timeoutMs?: number;
}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Ended by `timeoutMs`: killed with every process it started (a hook, a credential helper). */
  timedOut: boolean;
}

interface GitOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number | undefined;
}

function git(cwd: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  const { env = {}, input, timeoutMs } = options;
  return new Promise((resolve) => {
    // A prompt for credentials would wait for a terminal the job does not have. A process group of its
    // own (on Windows, which has none, its process tree) is ended whole at the timeout.
    const group = process.platform !== 'win32';
    const child = spawn('git', args, {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...env },
      detached: group,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let [stdout, stderr, timedOut] = ['', '', false];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            endAll(child, group);
          }, timeoutMs);
    const end = (code: number) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    };
    child.on('error', (error) => {
      stderr += error.message; // git missing, or not startable: said as git's own failure would be
      end(1);
    });
    child.on('close', (code) => end(code ?? 1));
    // Once ended by the timeout, its output is not waited for: a process it started that outlived it
    // (one the tree kill missed) may hold it open.
    child.on('exit', (code) => {
      if (!timedOut) return;
      child.stdout.destroy();
      child.stderr.destroy();
      end(code ?? 1);
    });
    // git may exit before it reads its input (a failure): said by its status, not an uncaught EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** Ends git and everything it started: its process group, or on Windows its process tree. */
function endAll(child: ChildProcess, group: boolean): void {
  if (child.pid === undefined) return;
  try {
    if (group) process.kill(-child.pid, 'SIGKILL');
    else {
      const tree = spawn('taskkill', ['/pid', String(child.pid), '/t', '/f'], { stdio: 'ignore' });
      tree.on('error', () => child.kill('SIGKILL'));
    }
  } catch {
    // Ended meanwhile.
  }
}

/** Why a git command failed, in words: the timeout (with the last thing git said), else what it said. */
function failure(result: GitResult, timeoutMs: number | undefined): string {
  const said = result.stderr.trim();
  if (!result.timedOut) return said || `exit ${result.code}`;
  const last = said.split('\n').at(-1);
  const timeout = `no answer from origin within ${formatDuration(timeoutMs ?? 0)} (the git-timeout input)`;
  return last ? `${timeout}; git last said: ${last}` : timeout;
}

async function gitOrThrow(cwd: string, args: string[], env?: NodeJS.ProcessEnv, input?: string) {
  const result = await git(cwd, args, { ...(env ? { env } : {}), ...(input === undefined ? {} : { input }) });
  if (result.code !== 0) throw new Error(`git ${args[0]}: ${failure(result, undefined)}`);
  return result.stdout.trim();
}

/** The branch's tip on `origin`, fetched; undefined when the branch does not exist yet. */
export async function fetchTip({ cwd, branch, timeoutMs }: BranchStore): Promise<string | undefined> {
  const ref = `refs/websites-sync/${branch}`;
  const args = ['fetch', '--no-tags', '--depth=1', 'origin', `+refs/heads/${branch}:${ref}`];
  const fetched = await git(cwd, args, { timeoutMs });
  if (fetched.code !== 0) {
    if (!fetched.timedOut && /couldn't find remote ref|not our ref/i.test(fetched.stderr)) return undefined;
    throw new Error(`git fetch ${branch}: ${failure(fetched, timeoutMs)}`);
  }
  return gitOrThrow(cwd, ['rev-parse', ref]);
}

/** Every file of the branch written into `dir` (created); false when the branch does not exist yet. */
export async function readBranchInto(store: BranchStore, dir: string): Promise<boolean> {
  const tip = await fetchTip(store);
  await mkdir(dir, { recursive: true });
  if (tip === undefined) return false;
  // From a new, empty index: every file of the tip is written, nothing else in `dir` is touched.
  await withIndex((env) =>
    gitOrThrow(store.cwd, [`--work-tree=${dir}`, 'read-tree', '--reset', '-u', tip], env),
  );
  return true;
}

/** One file of the branch, or undefined when the branch or the file does not exist. */
export async function readBranchFile(store: BranchStore, path: string): Promise<string | undefined> {
  const tip = await fetchTip(store);
  if (tip === undefined) return undefined;
  const shown = await git(store.cwd, ['show', `${tip}:${path}`]);
  return shown.code === 0 ? shown.stdout : undefined;
}

/**
 * Commits a tree built by `fill` (given a private index holding the tip's tree, or nothing on a new
 * branch) on top of the tip and pushes it; again on the new tip when the push is refused because the
 * tip moved. Nothing is committed when the tree is the tip's (or empty, on a new branch). Returns the
 * commit now at the tip, if any.
 */
export async function commitToBranch(
  store: BranchStore,
  message: string,
  fill: (env: NodeJS.ProcessEnv, tip: string | undefined) => Promise<void>,
): Promise<string | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const tip = await fetchTip(store);
    const commit = await withIndex(async (env) => {
      await gitOrThrow(store.cwd, tip ? ['read-tree', tip] : ['read-tree', '--empty'], env);
      await fill(env, tip);
      const tree = await gitOrThrow(store.cwd, ['write-tree'], env);
      const same = tip
        ? (await gitOrThrow(store.cwd, ['rev-parse', `${tip}^{tree}`])) === tree
        : tree === EMPTY_TREE;
      if (same) return undefined;
      return gitOrThrow(store.cwd, [...BOT, 'commit-tree', tree, ...(tip ? ['-p', tip] : []), '-m', message]);
    });
    if (commit === undefined) return tip;
    const pushed = await git(store.cwd, ['push', 'origin', `${commit}:refs/heads/${store.branch}`], {
      timeoutMs: store.timeoutMs,
    });
    if (pushed.code === 0) return commit;
    const moved =
      !pushed.timedOut &&
      /non-fast-forward|fetch first|stale info|cannot lock ref|failed to update ref/i.test(pushed.stderr);
    if (!moved || attempt >= ATTEMPTS) {
      throw new Error(`git push ${store.branch}: ${failure(pushed, store.timeoutMs)}`);
    }
  }
}

/** The files of the checkout's repository under `dir` (a directory of the work tree). */
export async function trackedUnder(cwd: string, dir: string): Promise<string[]> {
  const listed = await gitOrThrow(cwd, ['ls-files', '-z', '--', dir]);
  return listed.split('\0').filter(Boolean);
}

/** Replaces the whole tree with the files of `dir` (but lock files). */
export function replaceWithDirectory(cwd: string, dir: string) {
  return async (env: NodeJS.ProcessEnv) => {
    await gitOrThrow(cwd, ['read-tree', '--empty'], env);
    await gitOrThrow(cwd, [`--work-tree=${dir}`, 'add', '--force', '--all', '--', '.', ':!*.lock'], env);
  };
}

/** Adds (or replaces) one file, keeping the rest of the tree. */
export function putFile(cwd: string, path: string, content: string) {
  return async (env: NodeJS.ProcessEnv) => {
    const blob = await gitOrThrow(cwd, ['hash-object', '-w', '--stdin'], env, content);
    await gitOrThrow(cwd, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], env);
  };
}

async function withIndex<T>(use: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-index-'));
  try {
    return await use({ GIT_INDEX_FILE: join(dir, 'index') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
