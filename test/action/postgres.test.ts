import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import {
  commitManifest,
  git,
  mergePullRequest,
  type Runner,
  runAction,
  runnerFor,
} from '../helpers/action.js';
import { runCli } from '../helpers/cli.js';
import { type FakeGitHub, startFakeGitHub } from '../helpers/github-api.js';
import { pullRequestEvent, pushEvent } from '../helpers/github-events.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// The Action with its state in PostgreSQL (the `state` input, from a secret): the jobs of a pull
// request and a daemon share one state, no state branch is kept, and the URL's password is shown
// nowhere. A real server (a throwaway cluster, or WEBSITES_SYNC_TEST_DATABASE_URL).

const KEY = 'action-pg-api-key-3e9b';
const TOKEN = 'ghs_action-pg-token-51c0';
const MAIN = 'version: 1\nwebsites:\n  - domain: keep.example.com\n    exclude_params: [utm_source]\n';
const WITH_SHOP = `${MAIN}  - domain: shop.example.com\n    protect: true\n`;

let db: TestDatabase;
let simulator: Simulator;
let github: FakeGitHub;
let dir: string;
let runner: Runner;
let origin: string;
let stateUrl: string;

describe.skipIf(skipWithoutDatabase)('the Action with a PostgreSQL state', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  beforeEach(async () => {
    simulator = await startSimulator({ apiKey: KEY, websites: [{ domain: 'keep.example.com' }] });
    github = await startFakeGitHub({ owner: 'acme', repo: 'sites', token: TOKEN });
    dir = await mkdtemp(join(tmpdir(), 'websites-sync-action-pg-'));
    ({ runner, origin } = runnerFor(dir, github, MAIN, { token: TOKEN }));
    stateUrl = db.stateUrl(db.schema());
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
    state: stateUrl,
    ...more,
  });

  it('plans and applies with the state in the database: no state branch, and the password shown nowhere', async () => {
    const main = git(runner.workspace, 'rev-parse', 'HEAD');
    const first = await runAction(
      runner,
      { name: 'push', payload: pushEvent({ before: main, after: main }), sha: main },
      inputs('apply', { 'apply-unreviewed': 'true' }),
    );
    expect(first.code, first.stderr).toBe(0);

    git(runner.workspace, 'checkout', '-q', '-b', 'add-shop');
    const head = commitManifest(runner.workspace, WITH_SHOP, 'add shop');
    const payload = pullRequestEvent({ number: 3, headSha: head, baseSha: main });
    const plan = await runAction(runner, { name: 'pull_request', payload, sha: head }, inputs('plan'));
    expect(plan.code, plan.stderr).toBe(0);
    const merged = mergePullRequest(runner, github, { number: 3, headSha: head, manifest: WITH_SHOP });
    const apply = await runAction(
      runner,
      { name: 'push', payload: pushEvent({ before: main, after: merged }), sha: merged },
      inputs('apply'),
    );
    expect(apply.code, apply.stderr).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('shop.example.com');

    // The state is in the database, where a daemon or `state show` reads it; no branch holds it.
    expect(() => git(origin, 'rev-parse', '--verify', 'websites-sync-state')).toThrow();
    const shown = await runCli(['state', 'show'], { WEBSITES_SYNC_STATE: stateUrl });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/protected: 1\n {4}shop\.example\.com/);

    const texts = [first, plan, apply]
      .flatMap((r) => [r.stdout, r.stderr, r.summary, ...Object.values(r.outputs)])
      .concat([...github.comments.values()].flat().map((c) => c.body))
      .join('\n')
      .replace(/^::add-mask::.*$/gm, '');
    expect(texts).not.toContain(db.password);
    expect(texts).not.toContain(KEY);
  });

  it('a state that is not a postgres:// URL is refused, pointing at state-file', async () => {
    const main = git(runner.workspace, 'rev-parse', 'HEAD');
    const payload = pullRequestEvent({ number: 4, headSha: main, baseSha: main });
    const run = await runAction(
      runner,
      { name: 'pull_request', payload, sha: main },
      inputs('plan', { state: 'states/acme.json' }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'input state: "states/acme.json" is not a postgres:// URL; a state file is the state-file input',
    );
  });
});
