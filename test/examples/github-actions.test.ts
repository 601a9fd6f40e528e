import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Issue 12 §4: the CI recipe fails when it should. Each step that runs websites-sync is run here as
// GitHub runs it (its shell, `bash -e` when none is named), with a stub `websites-sync` that exits with
// a chosen status: 1 (error) and 3 (refused) must fail every step, 2 (changes) must fail the drift
// check and pass the plan.

interface Step {
  name?: string;
  run?: string;
  shell?: string;
}
interface Job {
  steps: Step[];
  concurrency?: { group: string; 'cancel-in-progress': boolean };
}
interface Workflow {
  defaults?: { run?: { shell?: string } };
  concurrency?: unknown;
  jobs: Record<string, Job>;
}

const file = new URL('../../examples/github-actions.yml', import.meta.url);
const text = readFileSync(file, 'utf8');
const workflow = parse(text) as Workflow;

function step(job: string, name: string): Step {
  const found = workflow.jobs[job]?.steps.find((s) => s.name === name);
  if (!found?.run) throw new Error(`no step "${name}" with a script in job ${job}`);
  return found;
}

/** GitHub's command line for a `run:` script: `shell: bash` adds pipefail; no shell is `bash -e`. */
function shellOf(s: Step): string[] {
  const shell = s.shell ?? workflow.defaults?.run?.shell;
  if (shell === 'bash') return ['bash', '--noprofile', '--norc', '-eo', 'pipefail'];
  if (shell === undefined) return ['bash', '-e'];
  throw new Error(`unexpected shell ${shell}`);
}

/** Runs a step's script with `websites-sync` exiting `code`; optional files in the work directory. */
function runStep(s: Step, code: number, files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'websites-sync-recipe-'));
  const bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin, join(dir, 'work')]);
  writeFileSync(join(bin, 'websites-sync'), `#!/bin/sh\necho "websites-sync $*"\nexit ${code}\n`);
  chmodSync(join(bin, 'websites-sync'), 0o755);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, 'work', name), content);
  const script = join(dir, 'step.sh');
  writeFileSync(script, s.run ?? '');
  const [command, ...args] = shellOf(s) as [string, ...string[]];
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    GITHUB_OUTPUT: join(dir, 'output'),
    RUNNER_TEMP: dir,
  };
  writeFileSync(env.GITHUB_OUTPUT, '');
  const result = spawnSync(command, [...args, script], { cwd: join(dir, 'work'), env, encoding: 'utf8' });
  return { status: result.status, output: readFileSync(env.GITHUB_OUTPUT, 'utf8') };
}

describe('examples/github-actions.yml', () => {
  it('plan: passes on 0 and 2 (changes to review) and says which, fails on 1 and 3', () => {
    const plan = step('plan', 'Plan');
    for (const code of [0, 2]) {
      const run = runStep(plan, code);
      expect(run.status, `exit ${code}`).toBe(0);
      expect(run.output).toContain(`exitcode=${code}`);
    }
    for (const code of [1, 3]) expect(runStep(plan, code).status, `exit ${code}`).toBe(code);
  });

  it('apply: fails on 1 and 3, with the reviewed plan and without one', () => {
    const apply = step('apply', 'Apply');
    const withAndWithout: Array<Record<string, string>> = [{ 'plan.json': '{}' }, {}];
    for (const files of withAndWithout) {
      expect(runStep(apply, 0, files).status).toBe(0);
      for (const code of [1, 3]) expect(runStep(apply, code, files).status, `exit ${code}`).not.toBe(0);
    }
  });

  it('drift: fails on 2 (the account drifted), 1 and 3', () => {
    const drift = step('drift', 'Check for drift');
    expect(runStep(drift, 0).status).toBe(0);
    for (const code of [1, 2, 3]) expect(runStep(drift, code).status, `exit ${code}`).not.toBe(0);
  });

  it('validate: fails on an invalid manifest', () => {
    expect(runStep(step('plan', 'Validate (offline, no request)'), 1).status).toBe(1);
  });

  it('a pull request can never cancel or replace a pending apply', () => {
    expect(workflow.concurrency).toBeUndefined();
    const groups = Object.fromEntries(
      Object.entries(workflow.jobs).map(([name, job]) => [name, job.concurrency?.group]),
    );
    expect(workflow.jobs.apply?.concurrency).toEqual({
      group: 'websites-sync-apply',
      'cancel-in-progress': false,
    });
    expect(groups.plan).toMatch(/pull_request\.number/);
    expect(new Set(Object.values(groups)).size).toBe(3);
  });

  it('builds the tool from a pinned commit of its repository, never from a registry name', () => {
    expect(text).not.toMatch(/npm install --global|npx websites-sync|websites-sync@/);
    for (const job of Object.values(workflow.jobs)) {
      expect(job.steps.some((s) => s.name === 'Build websites-sync')).toBe(true);
    }
    // A commit chosen in the repository's settings, not a moving branch of the tool.
    expect(text).toMatch(/ref: \$\{\{ vars\.WEBSITES_SYNC_REF \}\}/);
  });

  it('applies the plan that was reviewed when there is one', () => {
    expect(step('plan', 'Plan').run).toContain('--out plan.json');
    expect(step('apply', 'Apply').run).toContain('--once --plan plan.json');
  });

  it('keeps the state and backup file on a branch, not in the evictable Actions cache', () => {
    expect(text).not.toContain('actions/cache');
    expect(text).not.toMatch(/lost[^\n]*all is well/);
    expect(text).toContain('Losing it is NOT harmless');
    for (const job of ['plan', 'apply', 'drift']) {
      expect(workflow.jobs[job]?.steps.some((s) => s.name === 'Fetch the state')).toBe(true);
    }
    const dir = mkdtempSync(join(tmpdir(), 'websites-sync-state-branch-'));
    const git = (cwd: string, ...args: string[]) =>
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd,
        encoding: 'utf8',
      });
    git(dir, 'init', '-q', '--bare', 'origin.git');
    git(dir, 'clone', '-q', join(dir, 'origin.git'), 'work');
    const work = join(dir, 'work');
    writeFileSync(join(work, 'websites.yaml'), 'version: 1\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'manifest');
    git(work, 'push', '-q', 'origin', 'HEAD');
    let clock = 1_800_000_000;
    const runIn = (name: string, job = 'apply') => {
      const s = step(job, name);
      const script = join(dir, 'step.sh');
      writeFileSync(script, s.run ?? '');
      const [command, ...args] = shellOf(s) as [string, ...string[]];
      // Each step a minute after the last, as in a real job: a commit made again is a new commit.
      clock += 60;
      const date = `@${clock} +0000`;
      const env = {
        PATH: process.env.PATH,
        RUNNER_TEMP: dir,
        GITHUB_RUN_ID: '1',
        HOME: dir,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      };
      return spawnSync(command, [...args, script], { cwd: work, env, encoding: 'utf8' });
    };
    const branchFiles = () =>
      git(dir, '--git-dir=origin.git', 'ls-tree', '--name-only', 'websites-sync-state').stdout.split('\n');

    // A first run: no branch yet.
    expect(runIn('Fetch the state').status).toBe(0);
    writeFileSync(join(work, '.websites-sync/state.json'), '{"protected":{"7":{}}}\n');
    writeFileSync(join(work, '.websites-sync/.websites-sync-deleted.jsonl'), '{"domain":"old"}\n');
    writeFileSync(join(work, '.websites-sync/state.json.lock'), '123\n');
    const saved = runIn('Keep the state for the next run');
    expect(saved.status, saved.stderr).toBe(0);
    expect(branchFiles()).toEqual(['.websites-sync-deleted.jsonl', 'state.json', '']);

    // The next run (a fresh checkout) gets them back, and its save follows the last commit.
    spawnSync('rm', ['-rf', join(work, '.websites-sync'), join(dir, 'state-parent')]);
    expect(runIn('Fetch the state', 'drift').status).toBe(0);
    expect(readFileSync(join(work, '.websites-sync/state.json'), 'utf8')).toContain('"7"');
    writeFileSync(join(work, '.websites-sync/state.json'), '{"protected":{"8":{}}}\n');
    expect(runIn('Keep the state for the next run').status).toBe(0);
    const log = git(dir, '--git-dir=origin.git', 'log', '--format=%s', 'websites-sync-state').stdout;
    expect(log.trim().split('\n')).toHaveLength(2);
    // Nothing changed: no new commit.
    expect(runIn('Keep the state for the next run').status).toBe(0);
  });
});
