import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import {
  type ActionRun,
  commitManifest,
  git,
  mergePullRequest,
  type Runner,
  runAction,
  runnerFor,
} from '../helpers/action.js';
import {
  COMMENT_LIMIT,
  type Comment,
  type FakeGitHub,
  type Issue,
  startFakeGitHub,
} from '../helpers/github-api.js';
import { pullRequestEvent, pushEvent, scheduleEvent } from '../helpers/github-events.js';
import { startReceiver } from '../helpers/receiver.js';

// The GitHub Action end to end: the committed bundle run as the runner runs it, against the simulator,
// with GitHub's REST API answered by a loopback server and `origin` a local bare repository (the state
// and the signed plans are kept on its branches).

const KEY = 'action-e2e-api-key-5d1c';
const TOKEN = 'ghs_action-e2e-token-77aa';
const PASSWORD = 'action-e2e-password-91be';
const SEED: SeedWebsite[] = [{ domain: 'keep.example.com' }, { domain: 'edit.example.com' }];
// keep.example.com declares a write-only field: the first apply sends it, so the state (and its branch)
// exists from the first converged run on.
const MAIN =
  'version: 1\nwebsites:\n  - domain: keep.example.com\n    exclude_params: [utm_source]\n  - domain: edit.example.com\n';
const WITH_SHOP = `${MAIN}  - domain: shop.example.com\n    privacy: password\n    password: \${SHOP_PASSWORD}\n`;
const WITH_BLOG = `${WITH_SHOP}  - domain: blog.example.com\n`;

let simulator: Simulator;
let github: FakeGitHub;
let dir: string;
let runner: Runner;
let origin: string;
/** Each test runs the Action (and git) several times: 10-15 s on a loaded machine, so more than 30 s. */
const SLOW_TEST_MS = 90_000;

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: KEY, websites: SEED });
  github = await startFakeGitHub({ owner: 'acme', repo: 'sites', token: TOKEN });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-action-'));
  ({ runner, origin } = runnerFor(dir, github, MAIN, { token: TOKEN, env: { SHOP_PASSWORD: PASSWORD } }));
});

afterEach(async () => {
  await simulator.close();
  await github.close();
  await rm(dir, { recursive: true, force: true });
});

const inputs = (command: string, more: Record<string, string> = {}) => ({
  command,
  'api-key': KEY,
  'base-url': simulator.url,
  ...more,
});

function planOn(number: number, headSha: string, more: Record<string, string> = {}, headRepository?: string) {
  const base = git(runner.workspace, 'rev-parse', 'origin/main');
  const payload = pullRequestEvent({
    number,
    headSha,
    baseSha: base,
    ...(headRepository ? { headRepository } : {}),
  });
  return runAction(runner, { name: 'pull_request', payload, sha: headSha }, inputs('plan', more));
}

/** The pull request merged: main gets `manifest` as a merge commit GitHub knows belongs to #number. */
function merge(number: number, headSha: string, manifest: string): string {
  return mergePullRequest(runner, github, { number, headSha, manifest });
}

function applyOn(sha: string, before: string, more: Record<string, string> = {}) {
  return runAction(
    runner,
    { name: 'push', payload: pushEvent({ before, after: sha }), sha },
    inputs('apply', more),
  );
}

function branchFiles(branch: string): string[] {
  return git(origin, 'ls-tree', '--name-only', branch).split('\n').filter(Boolean);
}

/** Every text the Action wrote where people (or logs) read it holds no secret. */
function expectNoSecret(...runs: ActionRun[]) {
  const shown = [
    ...runs.flatMap((r) => [r.stdout, r.stderr, r.summary, ...Object.values(r.outputs)]),
    ...[...github.comments.values()].flat().map((c) => c.body),
    ...github.issues.map((i) => i.body ?? ''),
  ]
    .join('\n')
    // How an action asks the runner to mask a secret in its log: the runner consumes the line.
    .replace(/^::add-mask::.*$/gm, '');
  for (const secret of [KEY, TOKEN, PASSWORD]) expect(shown).not.toContain(secret);
}

/** A first apply on main (a direct push, opted in), so the state knows the account. */
async function converge(): Promise<void> {
  const sha = git(runner.workspace, 'rev-parse', 'HEAD');
  const run = await applyOn(sha, sha, { 'apply-unreviewed': 'true' });
  expect(run.code, run.stderr).toBe(0);
}

/** A comment on #number written by `user` before the Action ran. */
function commentBy(number: number, id: number, user: Comment['user'], body: string): Comment {
  return {
    id,
    node_id: `IC_${id}`,
    url: `${github.url}/repos/acme/sites/issues/comments/${id}`,
    html_url: `https://github.com/acme/sites/pull/${number}#issuecomment-${id}`,
    issue_url: `${github.url}/repos/acme/sites/issues/${number}`,
    body,
    user,
    created_at: '2026-11-26T08:00:00Z',
    updated_at: '2026-11-26T08:00:00Z',
    author_association: 'NONE',
  };
}

/** The drift-labelled issue #1, open, written by `user` before the Action ran. */
function issueBy(user: Issue['user'], association: string, body: string): Issue {
  return {
    id: 1,
    node_id: 'I_1',
    number: 1,
    title: 'drift',
    body,
    state: 'open',
    state_reason: null,
    labels: [{ id: 1, name: 'websites-sync-drift', color: 'ededed', default: false }],
    html_url: 'https://github.com/acme/sites/issues/1',
    url: `${github.url}/repos/acme/sites/issues/1`,
    created_at: '2026-11-26T08:00:00Z',
    updated_at: '2026-11-26T08:00:00Z',
    closed_at: null,
    user,
    author_association: association,
  };
}

const OTHER_APP = { login: 'my-other-app[bot]', id: 5550001, type: 'Bot' };

describe('plan: one living comment per pull request', { timeout: SLOW_TEST_MS }, () => {
  it('comments the plan, edits the same comment on the next push, and keeps the signed plan per head', async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const first = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const run1 = await planOn(7, first);
    expect(run1.code, run1.stderr).toBe(0);
    // A secret the tool learns (here the manifest's password, from the job's environment) is GitHub's
    // to mask too, in what the runner prints beside the tool.
    expect(run1.stdout).toContain(`::add-mask::${PASSWORD}\n`);
    expect(run1.outputs).toMatchObject({
      'exit-status': '2',
      'has-changes': 'true',
      creates: '1',
      deletes: '0',
    });
    const comments = () => github.comments.get(7) ?? [];
    expect(comments()).toHaveLength(1);
    const body1 = comments()[0]?.body ?? '';
    expect(body1).toContain('<!-- websites-sync plan -->');
    expect(body1).toContain('shop.example.com');
    expect(body1).toContain(first);
    // The summary comes first, then the tables; the job summary holds the whole plan.
    expect(body1.indexOf('Plan: 1 to create')).toBeLessThan(body1.indexOf('#### Create'));
    expect(run1.summary).toContain('shop.example.com');
    expect(run1.outputs['plan-json']).toMatch(/plan\.json$/);
    expect(branchFiles('websites-sync-plans')).toEqual([`${first}.json`]);

    const second = commitManifest(runner.workspace, WITH_BLOG, 'add blog');
    const run2 = await planOn(7, second);
    expect(run2.code, run2.stderr).toBe(0);
    expect(comments()).toHaveLength(1);
    expect(comments()[0]?.body).toContain('blog.example.com');
    expect(comments()[0]?.body).toContain(second);
    expect(github.calls.filter((c) => c.method === 'PATCH').map((c) => c.path)).toEqual([
      `/repos/acme/sites/issues/comments/${comments()[0]?.id}`,
    ]);
    expect(branchFiles('websites-sync-plans').sort()).toEqual([`${first}.json`, `${second}.json`].sort());
    // A plan changes nothing on the account.
    expect(simulator.listWebsites().map((w) => w.domain)).not.toContain('shop.example.com');
    expectNoSecret(run1, run2);
  });

  it("a contributor's comment that copies the marker is left alone: the plan is the bot's own comment", async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    // Written before the first plan, to be taken for the living comment: the Action's edit would put
    // the plan under the contributor's name, who could then edit it into another plan.
    const decoy = '<!-- websites-sync plan -->\n### Plan: no changes';
    github.comments.set(7, [
      {
        id: 1,
        node_id: 'IC_1',
        url: `${github.url}/repos/acme/sites/issues/comments/1`,
        html_url: 'https://github.com/acme/sites/pull/7#issuecomment-1',
        issue_url: `${github.url}/repos/acme/sites/issues/7`,
        body: decoy,
        user: { login: 'mallory', id: 666, type: 'User' },
        created_at: '2026-11-26T08:00:00Z',
        updated_at: '2026-11-26T08:00:00Z',
        author_association: 'CONTRIBUTOR',
      },
    ]);
    for (let i = 0; i < 2; i++) expect((await planOn(7, head)).code).toBe(0);
    const [theirs, ours, ...more] = github.comments.get(7) ?? [];
    expect(theirs?.body).toBe(decoy);
    expect(ours?.user.type).toBe('Bot');
    expect(ours?.body).toContain('shop.example.com');
    expect(more).toEqual([]);
  });

  it("another app's comment with the marker is not the plan comment: only the token's own account's is edited", async () => {
    // The token is an App's installation token (actions/create-github-app-token): it writes as the
    // App's bot, and neither another App's comment nor one the job's default token wrote is its own.
    await github.close();
    const app = { login: 'websites-sync-app[bot]', id: 5550002, type: 'Bot' };
    github = await startFakeGitHub({ owner: 'acme', repo: 'sites', token: TOKEN, identity: app });
    runner.apiUrl = github.url;
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const theirs = '<!-- websites-sync plan -->\nAnother app writes this comment.';
    const jobToken = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };
    github.comments.set(7, [commentBy(7, 1, OTHER_APP, theirs), commentBy(7, 2, jobToken, theirs)]);
    for (let i = 0; i < 2; i++) {
      const run = await planOn(7, head);
      expect(run.code, run.stdout).toBe(0);
    }
    const [other, job, ours, ...more] = github.comments.get(7) ?? [];
    expect(other?.body).toBe(theirs);
    expect(job?.body).toBe(theirs);
    expect(ours?.user.login).toBe('websites-sync-app[bot]');
    expect(ours?.body).toContain('shop.example.com');
    expect(more).toEqual([]);
    expect(github.calls.filter((c) => c.method === 'PATCH').map((c) => c.path)).toEqual([
      `/repos/acme/sites/issues/comments/${ours?.id}`,
    ]);
  });

  it('cuts a plan over 65,536 characters without breaking it: summary kept, the rest in the job summary', async () => {
    const many = Array.from(
      { length: 1500 },
      (_, i) => `  - domain: site-${String(i).padStart(4, '0')}-with-a-long-name.example.com\n`,
    );
    git(runner.workspace, 'checkout', '-q', '-b', 'many');
    const head = commitManifest(runner.workspace, `${MAIN}${many.join('')}`, 'many');
    const run = await planOn(9, head);
    expect(run.code, run.stderr).toBe(0);
    const body = github.comments.get(9)?.[0]?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('Plan: 1500 to create');
    expect(body).toContain(`The full plan: [the job summary](https://github.com/acme/sites/actions/runs/`);
    expect(body).not.toContain('site-1499-with');
    // Every <details> and table that was opened is closed.
    expect(body.match(/<details>/g)?.length).toBe(body.match(/<\/details>/g)?.length);
    expect(run.summary).toContain('site-1499-with-a-long-name.example.com');
    expect(run.outputs.creates).toBe('1500');
  });

  it('a password that is a word of JSON: the plan-json output parses, and the signed plan is kept', async () => {
    runner.env = { ...runner.env, SHOP_PASSWORD: 'true' };
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const run = await planOn(7, head);
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(readFileSync(run.outputs['plan-json'] ?? '', 'utf8'));
    expect(plan.changes).toMatchObject([
      { domain: 'shop.example.com', fields: { password: { to_sensitive: true } } },
    ]);
    expect(branchFiles('websites-sync-plans')).toEqual([`${head}.json`]);
    for (const line of run.stderr.split('\n').filter((l) => l.startsWith('{"level"'))) JSON.parse(line);
  });

  it("a short password is not given to GitHub's masking, which would mask it inside every word", async () => {
    runner.env = { ...runner.env, SHOP_PASSWORD: 'ab1' };
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const run = await planOn(7, commitManifest(runner.workspace, WITH_SHOP, 'add shop'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`::add-mask::${KEY}\n`);
    expect(run.stdout).not.toContain('::add-mask::ab1');
  });

  it('a pull request from a fork (no secrets) is told so in the job summary, without a stack trace', async () => {
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const run = await planOn(11, head, { 'api-key': '' }, 'someone/sites');
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toContain('comes from a fork');
    expect(run.stdout).toContain('::warning::pull request from a fork');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
    expect(simulator.requests).toHaveLength(0);
  });

  it("Dependabot's pull request (no secrets of the repository) is told so too, not failed for its key", async () => {
    const head = commitManifest(runner.workspace, WITH_SHOP, 'bump');
    const base = git(runner.workspace, 'rev-parse', 'origin/main');
    const payload = pullRequestEvent({ number: 12, headSha: head, baseSha: base, author: 'dependabot[bot]' });
    const run = await runAction(
      runner,
      { name: 'pull_request', payload, sha: head },
      inputs('plan', { 'api-key': '' }),
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.summary).toContain("This pull request is Dependabot's");
    expect(run.stdout).toContain('::warning::pull request from Dependabot');
    expect(simulator.requests).toHaveLength(0);
  });
});

describe('failures: said where people look, without a stack trace or a secret', {
  timeout: SLOW_TEST_MS,
}, () => {
  it('a GitHub API that accepts and never answers: the job fails within the timeout input, saying which call', async () => {
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    github.faults.hang = /^GET \/repos\/acme\/sites\/issues\/7\/comments$/;
    // Five seconds: a slow answer to an earlier call on a loaded machine is not the one that hangs.
    const run = await planOn(7, head, { timeout: '5s' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('GitHub did not answer GET /repos/acme/sites/issues/7/comments within 5 s');
    expectNoSecret(run);
  });

  it('a list GitHub pages without end: read up to 100 pages, then the job fails saying so', async () => {
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    github.faults.endlessPages = true;
    const run = await planOn(7, head);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'GitHub listed the comments of #7 in more than 100 pages of 100; stopped reading',
    );
    expect(github.calls.filter((c) => c.path.includes('/issues/7/comments')).length).toBe(100);
  });

  it("a list GitHub answered with no list (an empty or cut body, a proxy's page) fails the job naming the call: no second comment", async () => {
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    expect((await planOn(7, head)).code).toBe(0);
    const comments = () => github.comments.get(7) ?? [];
    expect(comments()).toHaveLength(1);
    const list = /^GET \/repos\/acme\/sites\/issues\/7\/comments$/;
    for (const answer of ['empty', 'cut', { status: 200, body: '<html>oops</html>' }] as const) {
      github.faults.broken = [{ call: list, times: 3, answer }];
      const run = await planOn(7, head);
      expect(run.code, JSON.stringify(answer)).toBe(1);
      expect(run.stdout).toMatch(
        /GitHub's answer to GET \/repos\/acme\/sites\/issues\/7\/comments is not a list but (an empty body|text); stopped before acting on it|GitHub did not answer GET \/repos\/acme\/sites\/issues\/7\/comments \(3 attempts\)/,
      );
      expect(run.outputs['exit-status']).toBe('1');
      expect(comments()).toHaveLength(1);
    }
  });

  it("a read that failed on GitHub's side is made again; a refused write names the call and the permission to give", async () => {
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const list = /^GET \/repos\/acme\/sites\/issues\/8\/comments$/;
    github.faults.broken = [
      { call: list, times: 2, answer: { status: 502, body: '<html>bad gateway</html>' } },
    ];
    const run = await planOn(8, head);
    expect(run.code, run.stdout).toBe(0);
    expect(github.comments.get(8)).toHaveLength(1);
    expect(github.calls.filter((c) => list.test(`${c.method} ${c.path.split('?')[0]}`))).toHaveLength(3);

    const write = /^POST \/repos\/acme\/sites\/issues\/9\/comments$/;
    const refusal = JSON.stringify({ message: 'Resource not accessible by integration', status: '403' });
    github.faults.broken = [
      { call: write, times: 1, answer: { status: 403, body: refusal, type: 'application/json' } },
    ];
    const refused = await planOn(9, head);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'GitHub answered POST /repos/acme/sites/issues/9/comments with 403: Resource not accessible by integration; the token lacks a permission',
    );
    expect(refused.stdout).toContain('pull-requests: write');
    // Written once: a write whose answer was lost may have been made.
    expect(github.calls.filter((c) => write.test(`${c.method} ${c.path.split('?')[0]}`))).toHaveLength(1);
    expect(refused.outputs['exit-status']).toBe('1');

    // A proxy's page that echoes the token where the words are cut: masked first, never its start.
    const echo = `${'x'.repeat(180)} token ${TOKEN} more`;
    github.faults.broken = [
      { call: write, times: 1, answer: { status: 502, body: echo, type: 'text/plain' } },
    ];
    const echoed = await planOn(9, head);
    expect(echoed.code).toBe(1);
    const shown = `${echoed.stdout}${echoed.summary}`.replace(/^::add-mask::.*$/gm, '');
    expect(shown).toContain('GitHub answered POST /repos/acme/sites/issues/9/comments with 502');
    expect(shown).not.toContain(TOKEN.slice(0, 12));
  });

  it('a plan comment GitHub refuses: the plan is not kept, so the apply after merge applies nothing unseen', async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const first = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    expect((await planOn(7, first)).code).toBe(0);
    const second = commitManifest(runner.workspace, WITH_BLOG, 'add blog');
    const edit = /^PATCH \/repos\/acme\/sites\/issues\/comments\/\d+$/;
    const refusal = JSON.stringify({ message: 'Resource not accessible by integration', status: '403' });
    github.faults.broken = [
      { call: edit, times: 1, answer: { status: 403, body: refusal, type: 'application/json' } },
    ];
    const run = await planOn(7, second);
    expect(run.code).toBe(1);
    expect(run.outputs['exit-status']).toBe('1');
    // The pull request still shows the first commit's plan: the second's is not kept.
    expect(github.comments.get(7)).toHaveLength(1);
    expect(github.comments.get(7)?.[0]?.body).not.toContain('blog.example.com');
    expect(branchFiles('websites-sync-plans')).toEqual([`${first}.json`]);
    expect(run.summary).toContain('blog.example.com');
    expect(run.summary).toContain('The signed plan above was not kept');
    expect(run.outputs.creates).toBe('2');

    const before = git(runner.workspace, 'rev-parse', 'origin/main');
    const applied = await applyOn(merge(7, second, WITH_BLOG), before);
    expect(applied.code).toBe(1);
    expect(applied.summary).toContain(
      `No reviewed plan of \`websites.yaml\` was kept for the head commit \`${second}\``,
    );
    expect(simulator.listWebsites().map((w) => w.domain)).not.toContain('blog.example.com');
  });

  it('an invalid manifest: the comment says which line, the job fails', async () => {
    git(runner.workspace, 'checkout', '-q', '-b', 'broken');
    const head = commitManifest(runner.workspace, `${MAIN}  - domain: [oops\n`, 'broken');
    const run = await planOn(12, head);
    expect(run.code).toBe(1);
    const body = github.comments.get(12)?.[0]?.body ?? '';
    expect(body).toContain(`No plan for commit \`${head}\``);
    expect(body).toMatch(/websites\.yaml:\d+:\d+/);
    // The annotation says what is wrong, not only "failed".
    expect(run.stdout).toMatch(/::error::websites-sync: .*websites\.yaml: 1 error\(s\); nothing was changed/);
    expect(run.outputs['exit-status']).toBe('1');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
    expect(simulator.requests).toHaveLength(0);
  });

  it('a plan the delete guard refuses: the refusal leads the comment, nothing is kept, the job fails', async () => {
    git(runner.workspace, 'checkout', '-q', '-b', 'empty');
    const head = commitManifest(runner.workspace, 'version: 1\nprune: true\nwebsites: []\n', 'empty');
    const run = await planOn(15, head);
    expect(run.code).toBe(3);
    expect(run.outputs['exit-status']).toBe('3');
    expect(run.stdout).toContain('::error::refused: the manifest lists no website');
    const body = github.comments.get(15)?.[0]?.body ?? '';
    expect(body.indexOf('Refused by the delete guard')).toBeGreaterThan(0);
    expect(body.indexOf('Refused by the delete guard')).toBeLessThan(body.indexOf('#### Delete'));
    expect(body).toContain('This plan is not kept');
    expect(() => git(origin, 'rev-parse', '--verify', 'websites-sync-plans')).toThrow();
  });

  it('an apply that fails and a state that cannot be kept then: the job says both, the first not lost', async () => {
    await converge();
    // Something for the state branch to keep from this run.
    writeFileSync(join(runner.workspace, '.websites-sync', 'note.txt'), 'x\n');
    const hook = join(origin, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "Permission to acme/sites.git denied." >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const pulls = /^GET \/repos\/acme\/sites\/commits\/[0-9a-f]+\/pulls$/;
    const notFound = JSON.stringify({ message: 'Not Found' });
    github.faults.broken = [
      { call: pulls, times: 1, answer: { status: 404, body: notFound, type: 'application/json' } },
    ];
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const run = await applyOn(sha, sha);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /GitHub answered GET \/repos\/acme\/sites\/commits\/[0-9a-f]+\/pulls with 404/,
    );
    expect(run.stdout).toContain('and the state could not be kept: git push websites-sync-state');
  });

  it('a plan that cannot be kept (the token may not push): shown, saying so, and the job fails', async () => {
    // As GitHub answers a push without `contents: write`.
    const hook = join(origin, 'hooks', 'pre-receive');
    writeFileSync(
      hook,
      '#!/bin/sh\necho "Permission to acme/sites.git denied to github-actions[bot]." >&2\nexit 1\n',
    );
    chmodSync(hook, 0o755);
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const run = await planOn(14, head);
    expect(run.code).toBe(1);
    const body = github.comments.get(14)?.[0]?.body ?? '';
    expect(body).toContain('The signed plan could not be kept');
    expect(body).toContain('Permission to acme/sites.git denied');
    expect(body).toContain('shop.example.com');
    expect(run.stdout).toContain('::error::the plan could not be kept on websites-sync-plans');
  });

  it('a push that never ends: ended at the git-timeout input, with what it started, and the job fails', async () => {
    // A remote that stops answering mid-push (here: its hook never returns).
    const hook = join(origin, 'hooks', 'pre-receive');
    writeFileSync(hook, `#!/bin/sh\necho $$ > "${join(origin, 'hook.pid')}"\nexec sleep 600\n`);
    chmodSync(hook, 0o755);
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const run = await planOn(15, head, { 'git-timeout': '3s' });
    expect(run.code).toBe(1);
    const body = github.comments.get(15)?.[0]?.body ?? '';
    expect(body).toContain('The signed plan could not be kept');
    expect(body).toContain('no answer from origin within 3s (the git-timeout input)');
    // The hook was ended with the push: nothing it started is left running.
    const pid = readFileSync(join(origin, 'hook.pid'), 'utf8').trim();
    const stat = join('/proc', pid, 'stat');
    // Gone, or a zombie waiting to be reaped (its parent was ended too): not running either way.
    if (existsSync(stat)) expect(readFileSync(stat, 'utf8').split(') ')[1]?.[0]).toBe('Z');
  });

  it('a service that echoes the key or a password: masked in the comment, summary, outputs and log', async () => {
    // A debug page printing the request's headers (Authorization included), on every request.
    simulator.setFaults({ script: Array.from({ length: 40 }, () => 'echo-html' as const) });
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const failed = await planOn(13, head, { timeout: '2s' });
    expect(failed.code).toBe(1);
    expect(github.comments.get(13)?.[0]?.body).toContain('the run failed');
    // A 422 quoting the password of the website being created.
    simulator.setFaults({ script: ['none', 'echo-422'] });
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const hook = await startReceiver();
    const applied = await applyOn(sha, sha, { 'apply-unreviewed': 'true', 'notify-url': hook.url });
    await hook.close();
    expect(applied.code).toBe(1);
    expect(applied.summary).toContain('is not valid');
    // The notify-url input is the option: the failure is told to the webhook too, masked alike.
    expect(hook.received.map((e) => e.event)).toEqual(['operation_failed']);
    expect(JSON.stringify(hook.received)).not.toContain(PASSWORD);
    expectNoSecret(failed, applied);
  });
});

describe('apply: exactly what was reviewed', { timeout: SLOW_TEST_MS }, () => {
  it('applies the plan reviewed for the merged head commit, and keeps the state on its branch', async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    expect((await planOn(7, head)).code).toBe(0);
    const before = git(runner.workspace, 'rev-parse', 'origin/main');
    const stateBefore = git(origin, 'rev-parse', 'websites-sync-state');
    const merged = merge(7, head, WITH_SHOP);
    const run = await applyOn(merged, before);
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toContain('Applied the plan reviewed in #7');
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('shop.example.com');
    expect(git(origin, 'rev-parse', 'websites-sync-state^')).toBe(stateBefore);
    expect(branchFiles('websites-sync-state')).toContain('state.json');
    expectNoSecret(run);
  });

  it("a state-file whose directory is not the state's own is refused before anything is read, applied or pushed", async () => {
    // A credentials file another step left in the checkout (google-github-actions/auth's), ignored.
    writeFileSync(join(runner.workspace, 'gha-creds-1a2b.json'), '{"private_key": "creds-5e1f"}');
    writeFileSync(join(runner.workspace, '.gitignore'), 'gha-creds-*.json\n');
    mkdirSync(join(runner.workspace, 'config'));
    writeFileSync(join(runner.workspace, 'config', 'team.txt'), 'ops\n');
    git(runner.workspace, 'add', '.gitignore', 'config/team.txt');
    git(runner.workspace, 'commit', '-q', '-m', 'config');
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    // A directory outside the checkout, named directly or through a link in it (a pull request can add
    // one), with a credentials file of its own.
    mkdirSync(join(dir, 'outside'));
    writeFileSync(join(dir, 'outside', 'git-credentials-1234.config'), 'creds-5e1f\n');
    symlinkSync(join(dir, 'outside'), join(runner.workspace, 'linked'));
    const cases = [
      ['.websites-sync-state.json', 'is the checkout itself'],
      ['../state.json', 'is a directory that holds the checkout'],
      ['../outside/state.json', 'is outside the checkout'],
      [join(dir, 'outside', 'state.json'), 'is outside the checkout'],
      ['linked/state.json', 'is outside the checkout'],
      ['config/state.json', 'is a directory with files of the repository (config/team.txt)'],
      ['.git/state.json', "is inside the repository's .git"],
    ];
    for (const [stateFile, why] of cases) {
      const run = await applyOn(sha, sha, { 'apply-unreviewed': 'true', 'state-file': stateFile ?? '' });
      expect(run.code, stateFile).toBe(1);
      expect(run.stdout, stateFile).toContain(why);
      expect(run.stdout).toContain('give the state a directory of its own');
    }
    expect(git(origin, 'branch', '--list', 'websites-sync-state')).toBe('');
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['keep.example.com', 'edit.example.com']);
    // The default, a directory of its own, is kept as before.
    const kept = await applyOn(sha, sha, { 'apply-unreviewed': 'true' });
    expect(kept.code, kept.stdout).toBe(0);
    expect(branchFiles('websites-sync-state')).toEqual(['state.json']);
  });

  it('a reviewed delete whose traffic gets no answer: not applied, not called stale; a re-run applies it', async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'drop-edit');
    const pruned =
      'version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n    exclude_params: [utm_source]\n';
    const head = commitManifest(runner.workspace, pruned, 'drop edit');
    expect((await planOn(9, head)).code).toBe(0);
    const before = git(runner.workspace, 'rev-parse', 'origin/main');
    const merged = merge(9, head, pruned);
    simulator.setFaults({ statsFault: 503 });
    const run = await applyOn(merged, before);
    expect(run.code).toBe(1);
    expect(run.summary).toContain('its traffic could not be read now');
    expect(run.summary).toContain('Re-run this job when the service answers');
    expect(run.summary).not.toContain('is stale');
    expect(run.stdout).not.toContain('::error::stale plan');
    // No fresh plan to review in a new pull request: the reviewed one still holds.
    const comments = github.comments.get(9) ?? [];
    expect(comments.some((c) => c.body.includes('<!-- websites-sync stale plan -->'))).toBe(false);
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    simulator.setFaults({ statsFault: undefined });
    const again = await applyOn(merged, before);
    expect(again.code, again.stdout).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['keep.example.com']);
  });

  it('a stale plan is not applied: the job fails, says what changed, and comments a fresh plan', async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    expect((await planOn(8, head)).code).toBe(0);
    // Someone changes the account in the web UI after the review.
    const edit = simulator.listWebsites().find((w) => w.domain === 'edit.example.com');
    simulator.updateWebsite(edit?.id ?? 0, { email: true });
    simulator.clearRequests();
    const before = git(runner.workspace, 'rev-parse', 'origin/main');
    const run = await applyOn(merge(8, head, WITH_SHOP), before);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::stale plan');
    expect(run.summary).toContain('is stale');
    expect(run.summary).toContain('edit.example.com');
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    const stale = github.comments.get(8)?.find((c) => c.body.includes('<!-- websites-sync stale plan -->'));
    expect(stale?.body).toContain('A fresh plan');
    expect(stale?.body).toContain('edit.example.com');
    // The reviewed plan's own comment stays as it was reviewed.
    expect(github.comments.get(8)).toHaveLength(2);
    expectNoSecret(run);
  });

  it('two manifests planned on one pull request: a comment and a kept plan each, and each apply finds its own', async () => {
    // staging.yaml is another account's (its own key, service and state), as a second step plans it.
    const staging = await startSimulator({ apiKey: KEY, websites: SEED });
    const stagingInputs = {
      manifest: 'staging.yaml',
      'base-url': staging.url,
      'state-file': '.websites-sync-staging/state.json',
      'state-branch': 'websites-sync-state-staging',
    };
    try {
      writeFileSync(
        join(runner.workspace, 'staging.yaml'),
        'version: 1\nwebsites:\n  - domain: keep.example.com\n',
      );
      git(runner.workspace, 'add', 'staging.yaml');
      git(runner.workspace, 'commit', '-q', '-m', 'staging');
      git(runner.workspace, 'push', '-q', 'origin', 'main');
      await converge();
      git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
      const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
      // Production first, then staging with no changes: the second must not replace the first.
      expect((await planOn(7, head)).code).toBe(0);
      expect((await planOn(7, head, stagingInputs)).code).toBe(0);
      const comments = github.comments.get(7) ?? [];
      expect(comments).toHaveLength(2);
      const [prod, stage] = comments;
      expect(prod?.body.startsWith('<!-- websites-sync plan -->')).toBe(true);
      expect(prod?.body).toContain('shop.example.com');
      expect(stage?.body.startsWith('<!-- websites-sync plan: staging.yaml -->')).toBe(true);
      expect(stage?.body).toContain('`staging.yaml`');
      expect(stage?.body).not.toContain('shop.example.com');
      expect(branchFiles('websites-sync-plans').sort()).toEqual([
        `${head}.json`,
        `${head}.staging.yaml.json`,
      ]);

      const before = git(runner.workspace, 'rev-parse', 'origin/main');
      const merged = merge(7, head, WITH_SHOP);
      const applied = await applyOn(merged, before);
      expect(applied.code, applied.stdout).toBe(0);
      expect(applied.summary).toContain('Applied the plan reviewed in #7 for `websites.yaml`');
      expect(simulator.listWebsites().map((w) => w.domain)).toContain('shop.example.com');
      const stagingApplied = await applyOn(merged, before, stagingInputs);
      expect(stagingApplied.code, stagingApplied.stdout).toBe(0);
      expect(stagingApplied.summary).toContain('Applied the plan reviewed in #7 for `staging.yaml`');
      expect(staging.listWebsites().map((w) => w.domain)).not.toContain('shop.example.com');
      expect(github.comments.get(7)).toHaveLength(2);
    } finally {
      await staging.close();
    }
  });

  it('a plan made stale by 1,500 added websites: the job summary has every reason, the comment is cut to fit', async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    expect((await planOn(8, head)).code).toBe(0);
    simulator.clearRequests();
    // Merged with 1,500 more websites than were reviewed: the stale reason lists every one.
    const many = Array.from(
      { length: 1500 },
      (_, i) => `  - domain: site-${String(i).padStart(4, '0')}-with-a-long-name.example.com\n`,
    );
    const before = git(runner.workspace, 'rev-parse', 'origin/main');
    const run = await applyOn(merge(8, head, `${WITH_SHOP}${many.join('')}`), before);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::stale plan');
    expect(run.outputs['exit-status']).toBe('1');
    expect(run.outputs.creates).toBe('1501');
    expect(run.summary).toContain('is stale');
    expect(run.summary).toContain('site-1499-with-a-long-name.example.com');
    const stale = github.comments.get(8)?.find((c) => c.body.startsWith('<!-- websites-sync stale plan -->'));
    expect(stale?.body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(stale?.body).toContain('is stale');
    expect(stale?.body).toContain(
      'the whole text is in [the job summary](https://github.com/acme/sites/actions/runs/',
    );
    expect(stale?.body).toContain('Plan: 1501 to create');
    expect(run.outputs.summary?.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it("a plan made stale by 25,000 added websites: the job summary is cut to GitHub's 1 MiB, the plan after the reasons", async () => {
    await converge();
    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    expect((await planOn(8, head)).code).toBe(0);
    // 25,000 reasons of about 50 bytes: GitHub drops a step summary over 1 MiB whole.
    const many = Array.from(
      { length: 25_000 },
      (_, i) => `  - domain: site-${String(i).padStart(5, '0')}-with-a-long-name.example.com\n`,
    );
    const before = git(runner.workspace, 'rev-parse', 'origin/main');
    const run = await applyOn(merge(8, head, `${WITH_SHOP}${many.join('')}`), before);
    expect(run.code).toBe(1);
    expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(1024 * 1024);
    expect(run.summary).toContain('is stale');
    expect(run.summary).toContain('site-00000-with-a-long-name.example.com added');
    expect(run.summary).toContain("Cut here to fit GitHub's 1 MiB limit for a job summary");
    expect(run.summary).toContain('Plan: 25001 to create');
    // The whole list is in the job's log, where the CLI wrote it.
    expect(run.stdout + run.stderr).toContain('site-24999-with-a-long-name.example.com added');
  }, 120_000);

  it('a push no reviewed plan covers applies nothing, unless the workflow opts in, and says so', async () => {
    const before = git(runner.workspace, 'rev-parse', 'HEAD');
    const sha = commitManifest(runner.workspace, WITH_SHOP, 'direct push');
    git(runner.workspace, 'push', '-q', 'origin', 'main');
    const refused = await applyOn(sha, before);
    expect(refused.code).toBe(1);
    expect(refused.summary).toContain('No merged pull request');
    expect(simulator.listWebsites()).toHaveLength(2);
    const applied = await applyOn(sha, before, { 'apply-unreviewed': 'true' });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.summary).toContain('Applying a fresh plan, unreviewed');
    expect(simulator.listWebsites()).toHaveLength(3);
  });
});

describe('drift: one issue that lives as long as the drift', { timeout: SLOW_TEST_MS }, () => {
  it('opens an issue, updates it with since when, and closes it when the account matches again', async () => {
    await converge();
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const drift = () =>
      runAction(runner, { name: 'schedule', payload: scheduleEvent(), sha }, inputs('drift'));
    const edit = simulator.listWebsites().find((w) => w.domain === 'edit.example.com');
    simulator.updateWebsite(edit?.id ?? 0, { email: true });

    const opened = await drift();
    expect(opened.code).toBe(2);
    expect(opened.outputs['has-changes']).toBe('true');
    expect(github.issues).toHaveLength(1);
    const issue = github.issues[0];
    expect(issue?.labels.map((l) => l.name)).toEqual(['websites-sync-drift']);
    expect(issue?.body).toContain('<!-- websites-sync drift -->');
    expect(issue?.body).toContain('edit.example.com');

    github.now = new Date(github.now.getTime() + 26 * 3600_000);
    const updated = await drift();
    expect(updated.code).toBe(2);
    expect(github.issues).toHaveLength(1);
    expect(issue?.body).toContain('since 2026-11-26T09:00:00.000Z');

    simulator.updateWebsite(edit?.id ?? 0, { email: false });
    const closed = await drift();
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.outputs['has-changes']).toBe('false');
    expect(issue?.state).toBe('closed');
    expect(issue?.state_reason).toBe('completed');
    expect(github.comments.get(issue?.number ?? 0)?.[0]?.body).toContain('matches the manifest again');
    expectNoSecret(opened, updated, closed);
  });

  it('after a rotation of the API key, with the key before as previous-api-key: no drift, the key masked', async () => {
    await converge();
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const NEW_KEY = 'action-e2e-rotated-key-3c9f';
    simulator.setApiKey(NEW_KEY);
    simulator.clearRequests();
    const drift = (more: Record<string, string>) =>
      runAction(
        runner,
        { name: 'schedule', payload: scheduleEvent(), sha },
        inputs('drift', { 'api-key': NEW_KEY, ...more }),
      );
    // The new key alone: exclude_params, whose fingerprint is keyed by the key, would be resent.
    const alone = await drift({});
    expect(alone.code).toBe(2);
    const withPrevious = await drift({ 'previous-api-key': KEY });
    expect(withPrevious.code, withPrevious.stderr).toBe(0);
    expect(withPrevious.outputs['has-changes']).toBe('false');
    expect(simulator.requests.some((r) => JSON.stringify(r.headers).includes(KEY))).toBe(false);
    // The key before, from a file the job's environment names: GitHub's masking is given it too.
    const file = join(dir, 'previous-api-key');
    writeFileSync(file, `${KEY}\n`);
    runner.env = { ...runner.env, WEBSITES_SYNC_PREVIOUS_API_KEY_FILE: file };
    const fromFile = await drift({});
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toContain(`::add-mask::${KEY}\n`);
    expectNoSecret(alone, withPrevious, fromFile);
  });

  it('a manifest beyond the account\'s plan limit is drift (and an error), never "No drift"', async () => {
    await simulator.close();
    simulator = await startSimulator({ apiKey: KEY, websites: SEED, maxWebsites: 2 });
    const sha = commitManifest(runner.workspace, `${MAIN}  - domain: blog.example.com\n`, 'add blog');
    const run = await runAction(runner, { name: 'schedule', payload: scheduleEvent(), sha }, inputs('drift'));
    expect(run.code).toBe(1);
    expect(run.summary).toContain('The account differs from the manifest');
    expect(run.summary).not.toContain('No drift');
    expect(github.issues).toHaveLength(1);
    expect(github.issues[0]?.body).toContain('blog.example.com');
    expect(run.stdout).toContain('::error::drift: the account differs from the manifest');
  });

  it('an issue GitHub refuses to open: the job fails, the job summary and the outputs are still written', async () => {
    await converge();
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const edit = simulator.listWebsites().find((w) => w.domain === 'edit.example.com');
    simulator.updateWebsite(edit?.id ?? 0, { email: true });
    const refusal = JSON.stringify({ message: 'Resource not accessible by integration', status: '403' });
    github.faults.broken = [
      {
        call: /^POST \/repos\/acme\/sites\/issues$/,
        times: 1,
        answer: { status: 403, body: refusal, type: 'application/json' },
      },
    ];
    const run = await runAction(runner, { name: 'schedule', payload: scheduleEvent(), sha }, inputs('drift'));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('issues: write');
    expect(github.issues).toHaveLength(0);
    expect(run.summary).toContain('The account differs from the manifest');
    expect(run.summary).toContain('edit.example.com');
    expect(run.outputs).toMatchObject({ 'exit-status': '1', 'has-changes': 'true', updates: '1' });
    expect(run.outputs.summary).toContain('edit.example.com');
  });

  it('the open drift issue that cannot be read: the job fails, its summary and outputs still written, no second issue', async () => {
    await converge();
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const edit = simulator.listWebsites().find((w) => w.domain === 'edit.example.com');
    simulator.updateWebsite(edit?.id ?? 0, { email: true });
    const down = JSON.stringify({ message: 'Server Error' });
    github.faults.broken = [
      {
        call: /^GET \/repos\/acme\/sites\/issues$/,
        times: 3,
        answer: { status: 502, body: down, type: 'application/json' },
      },
    ];
    const run = await runAction(runner, { name: 'schedule', payload: scheduleEvent(), sha }, inputs('drift'));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/GitHub answered GET \/repos\/acme\/sites\/issues\S* with 502/);
    expect(github.issues).toHaveLength(0);
    expect(run.summary).toContain('The account differs from the manifest');
    expect(run.summary).toContain('since when is not known (the drift issue could not be read)');
    expect(run.summary).toContain('edit.example.com');
    expect(run.outputs).toMatchObject({ 'exit-status': '1', 'has-changes': 'true', updates: '1' });
  });

  it("another app's issue with the marker and the label is not the drift issue", async () => {
    await converge();
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const theirs = '<!-- websites-sync drift -->\nAnother app tracks this.';
    github.issues.push(issueBy(OTHER_APP, 'NONE', theirs));
    const edit = simulator.listWebsites().find((w) => w.domain === 'edit.example.com');
    simulator.updateWebsite(edit?.id ?? 0, { email: true });
    const run = await runAction(runner, { name: 'schedule', payload: scheduleEvent(), sha }, inputs('drift'));
    expect(run.code).toBe(2);
    const [other, ours, ...more] = github.issues;
    expect(other?.body).toBe(theirs);
    expect(ours?.user.login).toBe('github-actions[bot]');
    expect(ours?.body).toContain('edit.example.com');
    expect(more).toEqual([]);
  });

  it("an issue a contributor opened with the marker and the label (an issue template's) is not the drift issue", async () => {
    await converge();
    const sha = git(runner.workspace, 'rev-parse', 'HEAD');
    const decoy = '<!-- websites-sync drift -->\nAll good, nothing drifted.';
    github.issues.push(issueBy({ login: 'mallory', id: 666, type: 'User' }, 'CONTRIBUTOR', decoy));
    const edit = simulator.listWebsites().find((w) => w.domain === 'edit.example.com');
    simulator.updateWebsite(edit?.id ?? 0, { email: true });
    const run = await runAction(runner, { name: 'schedule', payload: scheduleEvent(), sha }, inputs('drift'));
    expect(run.code).toBe(2);
    const [theirs, ours, ...more] = github.issues;
    expect(theirs?.body).toBe(decoy);
    expect(ours?.user.type).toBe('Bot');
    expect(ours?.body).toContain('edit.example.com');
    expect(more).toEqual([]);
  });
});
