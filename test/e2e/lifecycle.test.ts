import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// protect, observe, ignore_fields and delete_delay through the built binary against the simulator:
// exit codes, the requests that reach the service, and what the plan says.

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

async function start(websites: SeedWebsite[]): Promise<void> {
  simulator = await startSimulator({ websites });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-lifecycle-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

afterEach(async () => {
  await simulator.close();
});

function manifest(text: string): Promise<void> {
  return writeFile(join(dir, 'websites.yaml'), `version: 1\n${text}`);
}

function writes(): string[] {
  return simulator.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

/** The first run without a state resends write-only fields once; deletes are what these tests watch. */
function deletes(): string[] {
  return writes().filter((write) => write.startsWith('DELETE'));
}

function idOf(domain: string): number {
  const website = simulator.listWebsites().find((w) => w.domain === domain);
  if (!website) throw new Error(`no ${domain} on the simulator`);
  return website.id;
}

async function readState(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as Record<string, unknown>;
}

describe('protect: true', () => {
  it('keeps a website removed from the manifest, through prune and --force, until protect: false is applied', async () => {
    await start([{ domain: 'keep.example.com' }, { domain: 'other.example.com' }]);
    const id = idOf('keep.example.com');
    await manifest(
      'defaults:\n  protect: true\nwebsites:\n  - domain: keep.example.com\n  - domain: other.example.com\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(await readState()).toMatchObject({ protected: { [String(id)]: { domain: 'keep.example.com' } } });

    // The entry is removed: unmanaged, and still protected.
    await manifest('prune: true\nwebsites:\n  - domain: other.example.com\n');
    const dry = await runCli(['--once', '--dry-run', '--prune', '--force'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      '= keep.example.com: kept: protected; to allow deleting it, apply `protect: false` for it first',
    );
    expect(dry.stdout).toContain(
      'No changes. 1 website(s) match the manifest. Held back: 1 kept (protected).',
    );
    const json = JSON.parse((await runCli(['--once', '--dry-run', '-o', 'json'], env)).stdout);
    expect(json.summary).toMatchObject({ delete: 0, protected: 1 });
    simulator.clearRequests();
    const forced = await runCli(['--once', '--prune', '--force'], env);
    expect(forced.code).toBe(0);
    expect(writes()).toEqual([]);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('keep.example.com');

    // Lifted only by applying a manifest that lists it with protect: false; then removal deletes it.
    await manifest(
      'prune: true\nwebsites:\n  - domain: keep.example.com\n    protect: false\n  - domain: other.example.com\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(Object.keys((await readState()).protected as object)).toEqual([String(idOf('other.example.com'))]);
    await manifest('prune: true\nwebsites:\n  - domain: other.example.com\n');
    const removed = await runCli(['--once'], env);
    expect(removed.code).toBe(0);
    expect(writes()).toEqual([`DELETE /api/v1/websites/${id}`]);
  });

  it('protects a website from the moment it is created', async () => {
    await start([]);
    await manifest('websites:\n  - domain: new.example.com\n    protect: true\n');
    expect((await runCli(['--once'], env)).code).toBe(0);
    const id = idOf('new.example.com');
    expect(await readState()).toMatchObject({ protected: { [String(id)]: { domain: 'new.example.com' } } });
  });
});

describe('observe: true', () => {
  it('shows drift in the plan and never writes', async () => {
    await start([{ domain: 'seen.example.com', email: true }]);
    await manifest('websites:\n  - domain: seen.example.com\n    observe: true\n    email: false\n');
    const dry = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      '~ seen.example.com (id 1)  (observed (observe: true): drift shown, never applied)',
    );
    expect(dry.stdout).toContain('email: true → false');
    expect(dry.stdout).toContain('Held back: 1 observed with drift (not applied).');
    const applied = await runCli(['--once', '-o', 'json'], env);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      summary: { update: 0, observed: 1 },
      observed: [{ domain: 'seen.example.com', fields: { email: { from: true, to: false } } }],
    });
    expect(writes()).toEqual([]);
  });
});

describe('observe: true and write-only fields', () => {
  it('neither compares nor shows as "will be sent" the fields the service never returns, in any format', async () => {
    await start([
      { domain: 'seen.example.com', email: true, privacy: 1 },
      { domain: 'quiet.example.com', privacy: 2, password: 'other-pw', exclude_params: ['utm'] },
    ]);
    const site = (domain: string, extra: string) =>
      `  - domain: ${domain}\n    observe: true\n    privacy: password\n    password: \${PW}\n    exclude_params: [utm]\n${extra}`;
    await manifest(
      `websites:\n${site('seen.example.com', '    email: false\n')}${site('quiet.example.com', '')}`,
    );
    const runEnv = { ...env, PW: 'observed-pw-1' };
    const text = await runCli(['--once', '--dry-run'], runEnv);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain('will be sent');
    expect(text.stdout).not.toContain('quiet.example.com');
    // What is known to differ stays: the service says seen has no password at all.
    expect(text.stdout).toMatch(
      /~ seen\.example\.com \(id 1\) {2}\(observed[^\n]*\n {4}privacy: private → password\n {4}email: true → false\n {4}password: \(none\) → \(sensitive\)\n(?! {4})/,
    );
    expect(text.stdout).toContain(
      'No changes. 1 website(s) match the manifest. Held back: 1 observed with drift (not applied).',
    );
    const markdown = await runCli(['--once', '--dry-run', '-o', 'markdown'], runEnv);
    expect(markdown.stdout).not.toContain('will be sent');
    expect(markdown.stdout).not.toContain('exclude_params');
    const json = JSON.parse((await runCli(['--once', '-o', 'json'], runEnv)).stdout);
    expect(json.summary).toMatchObject({ update: 0, resend: 0, observed: 1, unchanged: 1 });
    expect(json.observed).toHaveLength(1);
    expect(Object.keys(json.observed[0].fields).sort()).toEqual(['email', 'password', 'privacy']);
    expect(json.observed[0]).toMatchObject({ domain: 'seen.example.com', resend_only: false });
    expect(writes()).toEqual([]);
  });
});

describe('ignore_fields', () => {
  it('never compares, shows or sends an ignored field, in updates and in creates', async () => {
    await start([{ domain: 'owned.example.com', email: true, exclude_bots: true }]);
    await manifest(
      'defaults:\n  ignore_fields: [email]\n  email: false\nwebsites:\n  - domain: owned.example.com\n    exclude_bots: false\n  - domain: new.example.com\n    email: true\n    ignore_fields: [email, exclude_ips]\n    exclude_ips: [203.0.113.9]\n',
    );
    const dry = await runCli(['--once', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).not.toContain('email');
    expect(dry.stdout).not.toContain('exclude_ips');
    expect((await runCli(['--once'], env)).code).toBe(0);
    const sent = simulator.requests.filter((r) => r.method !== 'GET');
    expect(sent.map((r) => r.method).sort()).toEqual(['PATCH', 'POST']);
    for (const request of sent) {
      expect(Object.keys(request.body ?? {})).not.toContain('email');
      expect(Object.keys(request.body ?? {})).not.toContain('exclude_ips');
    }
    // The owner's value stays; the created website has the service's default.
    const byDomain = new Map(simulator.listWebsites().map((w) => [w.domain, w]));
    expect(byDomain.get('owned.example.com')).toMatchObject({ email: 1, exclude_bots: 0 });
    // Left out of the store, so the service keeps no value (it applies no default).
    expect(byDomain.get('new.example.com')).toMatchObject({ email: null });
    expect(byDomain.get('new.example.com')?.exclude_ips ?? []).toEqual([]);
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
  });

  it('rejects an unknown field name with a suggestion, and sends nothing', async () => {
    await start([]);
    await manifest('websites:\n  - domain: a.example.com\n    ignore_fields: [emial]\n');
    const result = await runCli(['--once'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'websites.yaml:4:21: error: websites[0].ignore_fields[0]: unknown field "emial"; did you mean "email"?',
    );
    expect(simulator.requests).toEqual([]);
  });
});

describe('delete_delay', () => {
  it('holds a delete back, run after run, then sends it once it is due', async () => {
    await start([{ domain: 'gone.example.com' }, { domain: 'stay.example.com' }]);
    const id = idOf('gone.example.com');
    await manifest('prune: true\ndelete_delay: 24h\nwebsites:\n  - domain: stay.example.com\n');
    const first = await runCli(['--once'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /- gone\.example\.com \(id \d+\): will be deleted after \d{4}-\d\d-\d\d \d\d:\d\d UTC, missing from the manifest since \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    expect(deletes()).toEqual([]);
    const pending = (await readState()).pending_deletes as Record<string, { since: string }>;
    const since = pending[String(id)]!.since;

    // Still pending on the next run, since when unchanged.
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(deletes()).toEqual([]);
    expect((await readState()).pending_deletes).toEqual({
      [String(id)]: { domain: 'gone.example.com', since },
    });

    // A day passes (the state says since when, so time is moved there rather than waited for).
    const state = await readState();
    const dayAgo = new Date(Date.parse(since) - 25 * 3_600_000).toISOString();
    state.pending_deletes = { [String(id)]: { domain: 'gone.example.com', since: dayAgo } };
    await writeFile(join(dir, 'state.json'), JSON.stringify(state));
    const due = await runCli(['--once'], env);
    expect(due.code).toBe(0);
    expect(deletes()).toEqual([`DELETE /api/v1/websites/${id}`]);
    expect((await readState()).pending_deletes).toBeUndefined();
  });

  it('a delete_delay beyond the range of --delete-delay is a manifest error: validate names the line, --once sends nothing', async () => {
    await start([{ domain: 'gone.example.com' }, { domain: 'stay.example.com' }]);
    await manifest('prune: true\ndelete_delay: 200000000d\nwebsites:\n  - domain: stay.example.com\n');
    const problem = 'delete_delay: must be a duration from 0 to 365d; got "200000000d"';
    const validate = await runCli(['validate'], env);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(`websites.yaml:3:15: error: ${problem}`);
    const once = await runCli(['--once'], env);
    expect(once.code).toBe(1);
    expect(once.stderr).toContain(problem);
    expect(once.stderr).not.toContain('internal error');
    expect(simulator.requests).toEqual([]);
    // The flag's range is the same one.
    const flag = await runCli(['--once', '--delete-delay', '366d'], env);
    expect(flag.stderr).toContain('--delete-delay: "366d" is out of range; use a duration from 0 to 365d');
  });

  it('takes a website that comes back off the list; --delete-delay overrides the manifest', async () => {
    await start([{ domain: 'back.example.com' }, { domain: 'stay.example.com' }]);
    await manifest('prune: true\nwebsites:\n  - domain: stay.example.com\n');
    const dry = await runCli(['--once', '--dry-run', '--delete-delay', '1h'], env);
    expect(dry.stdout).toContain('Held back: 1 delete(s) pending (delete_delay).');
    expect((await runCli(['--once'], { ...env, WEBSITES_SYNC_DELETE_DELAY: '2h' })).code).toBe(0);
    expect(deletes()).toEqual([]);
    expect(Object.keys((await readState()).pending_deletes as object)).toHaveLength(1);

    await manifest('prune: true\nwebsites:\n  - domain: stay.example.com\n  - domain: back.example.com\n');
    expect((await runCli(['--once'], { ...env, WEBSITES_SYNC_DELETE_DELAY: '2h' })).code).toBe(0);
    expect((await readState()).pending_deletes).toBeUndefined();
    expect(deletes()).toEqual([]);

    const bad = await runCli(['--once', '--delete-delay', 'tomorrow'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--delete-delay: "tomorrow" is not a duration');
  });

  it('a saved plan sends its due delete, not the pending one, and is not stale because of it', async () => {
    await start([
      { domain: 'due.example.com' },
      { domain: 'wait.example.com' },
      { domain: 'stay.example.com' },
    ]);
    const id = idOf('due.example.com');
    await manifest('prune: true\ndelete_delay: 24h\nwebsites:\n  - domain: stay.example.com\n');
    expect((await runCli(['--once'], env)).code).toBe(0);
    const state = await readState();
    const pending = state.pending_deletes as Record<string, { domain: string; since: string }>;
    pending[String(id)]!.since = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await writeFile(join(dir, 'state.json'), JSON.stringify(state));

    const planFile = join(dir, 'plan.json');
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
    expect(saved.stdout).toContain('Plan: 0 to create, 0 to update, 1 to delete');
    expect(saved.stdout).toContain('Held back: 1 delete(s) pending (delete_delay).');
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(deletes()).toEqual([`DELETE /api/v1/websites/${id}`]);
  });
});

// Applying a reviewed plan (`--once --plan FILE`) is a real run: what the manifest asks the state to
// remember (protection, since when a delete has been pending) is remembered as by `--once`.
/** Saves the plan for review, then applies exactly it; both must succeed. */
async function reviewAndApply(): Promise<void> {
  const planFile = join(dir, 'plan.json');
  const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
  expect(saved.code, saved.stderr).toBe(0);
  const applied = await runCli(['--once', '--plan', planFile], env);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
}

describe('--once --plan records what the manifest asks the state to remember', () => {
  it('protects a listed website and a created one, so removing their entries never deletes them', async () => {
    await start([{ domain: 'keep.example.com' }, { domain: 'other.example.com' }]);
    await manifest(
      'websites:\n  - domain: keep.example.com\n    protect: true\n  - domain: new.example.com\n    protect: true\n  - domain: other.example.com\n',
    );
    await reviewAndApply();
    expect(await readState()).toMatchObject({
      protected: {
        [String(idOf('keep.example.com'))]: { domain: 'keep.example.com' },
        [String(idOf('new.example.com'))]: { domain: 'new.example.com' },
      },
    });

    await manifest('prune: true\nwebsites:\n  - domain: other.example.com\n');
    const forced = await runCli(['--once', '--force'], env);
    expect(forced.code).toBe(0);
    expect(deletes()).toEqual([]);
    expect(
      simulator
        .listWebsites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(['keep.example.com', 'new.example.com', 'other.example.com']);
  });

  it('lifts a protection when the applied plan lists the website with protect: false', async () => {
    await start([{ domain: 'keep.example.com' }, { domain: 'other.example.com' }]);
    const id = idOf('keep.example.com');
    await manifest(
      'websites:\n  - domain: keep.example.com\n    protect: true\n  - domain: other.example.com\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    await manifest(
      'websites:\n  - domain: keep.example.com\n    protect: false\n  - domain: other.example.com\n',
    );
    await reviewAndApply();
    expect((await readState()).protected).toBeUndefined();

    await manifest('prune: true\nwebsites:\n  - domain: other.example.com\n');
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(deletes()).toEqual([`DELETE /api/v1/websites/${id}`]);
  });

  it('starts the delete_delay clock of a delete it holds back', async () => {
    await start([{ domain: 'gone.example.com' }, { domain: 'stay.example.com' }]);
    const id = idOf('gone.example.com');
    await manifest('prune: true\ndelete_delay: 24h\nwebsites:\n  - domain: stay.example.com\n');
    const before = Date.now();
    await reviewAndApply();
    const pending = (await readState()).pending_deletes as Record<string, { since: string }>;
    expect(pending[String(id)]).toBeDefined();
    const since = Date.parse(pending[String(id)]!.since);
    expect(since).toBeGreaterThanOrEqual(before - 1000);

    // The clock runs on: the next run does not restart it.
    const again = await runCli(['--once', '--dry-run'], env);
    expect(again.stdout).toContain(
      `missing from the manifest since ${pending[String(id)]!.since.slice(0, 16).replace('T', ' ')}`,
    );
    expect(deletes()).toEqual([]);
  });
});
