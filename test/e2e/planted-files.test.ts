import { execFileSync } from 'node:child_process';
import { chmod, lchown, mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A directory anyone can write, such as /tmp: another user can make a name there before the operator's
// first run, as a file or a link, and what it holds then decides what the run knows (a state without
// its protections) or where it writes (a link to one of the operator's own files). The CLI refuses
// such an entry (refusePlanted in src/state/private-file.ts), before anything is sent.
const OTHER = 65534; // nobody: making a file another user's needs root (chown)
const asRoot = process.getuid?.() === 0;

let simulator: Simulator;
let dir: string;
let shared: string;
let mine: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-planted-'));
  shared = join(dir, 'shared');
  mine = join(dir, 'mine');
  await mkdir(shared);
  await chmod(shared, 0o1777); // like /tmp
  await mkdir(mine, { mode: 0o700 });
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: b.example.com\n');
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

/** `path` made by another user: a file holding `text`, or a link to `target`. */
async function plant(path: string, made: { text: string } | { target: string }): Promise<void> {
  if ('text' in made) await writeFile(path, made.text);
  else await symlink(made.target, path);
  await lchown(path, OTHER, OTHER);
}

function writes(): string[] {
  return simulator.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

describe.skipIf(!asRoot)('a file another user made first in a directory anyone can write', () => {
  it('a state file: refused, so a forged state (no protections, deletes long due) decides nothing', async () => {
    const state = join(shared, 'state.json');
    await plant(state, { text: JSON.stringify({ version: 1, base_url: simulator.url, websites: {} }) });
    const run = await runCli(['--once', '--prune'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `websites-sync: ${state} belongs to another user (uid ${OTHER}) and lies in ${shared}, a directory anyone can write`,
    );
    expect(writes()).toEqual([]);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);
  });

  it("a link as the state file: refused, and the file it points at (the operator's own) is neither moved nor written", async () => {
    const victim = join(mine, 'victim');
    await writeFile(victim, 'not a state\n');
    const state = join(shared, 'state.json');
    await plant(state, { target: victim });
    const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${state} belongs to another user (uid ${OTHER})`);
    expect(await readFile(victim, 'utf8')).toBe('not a state\n');
    expect(writes()).toEqual([]);
  });

  it('a backup file: refused before any change (they could read it, or empty it before a restore)', async () => {
    const backup = join(shared, 'deleted.jsonl');
    await plant(backup, { text: '' });
    const run = await runCli(['--once', '--prune'], { ...env, WEBSITES_SYNC_BACKUP_FILE: backup });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${backup} belongs to another user (uid ${OTHER})`);
    expect(writes()).toEqual([]);
  });

  it('a saved plan (--out) or an exported manifest (export --out --force) through a link: refused, its target untouched', async () => {
    const victim = join(mine, 'victim');
    await writeFile(victim, 'mine\n');
    const plan = join(shared, 'plan.json');
    await plant(plan, { target: victim });
    const dryRun = await runCli(['--once', '--dry-run', '--out', plan], env);
    expect(dryRun.code).toBe(1);
    expect(dryRun.stderr).toContain(`${plan} belongs to another user (uid ${OTHER})`);
    const exported = join(shared, 'account.yaml');
    await plant(exported, { target: victim });
    const run = await runCli(['export', '--out', exported, '--force'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${exported} belongs to another user (uid ${OTHER})`);
    expect(await readFile(victim, 'utf8')).toBe('mine\n');
  });

  it("the operator's own link to a name another user made first: refused for a saved plan, a backup or an export", async () => {
    // The link is the operator's, in a directory of theirs; what it names lies in the shared one, where
    // another user made it first: a link to the operator's victim file, or a file they can read.
    const victim = join(mine, 'victim');
    await writeFile(victim, 'mine\n');
    await plant(join(shared, 'to-victim'), { target: victim });
    await plant(join(shared, 'theirs'), { text: '' });
    for (const [name, target] of [
      ['plan.json', 'to-victim'],
      ['account.yaml', 'to-victim'],
      ['deleted.jsonl', 'theirs'],
    ] as const) {
      await symlink(join(shared, target), join(mine, name));
    }
    const runs = [
      ['--once', '--dry-run', '--out', join(mine, 'plan.json')],
      ['export', '--out', join(mine, 'account.yaml'), '--force'],
      ['--once', '--prune', '--backup-file', join(mine, 'deleted.jsonl')],
    ];
    for (const args of runs) {
      const run = await runCli(args, env);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`belongs to another user (uid ${OTHER}) and lies in ${shared}`);
    }
    expect(await readFile(victim, 'utf8')).toBe('mine\n');
    expect(await readFile(join(shared, 'theirs'), 'utf8')).toBe('');
    expect(writes()).toEqual([]);
  });

  it("the operator's own link to a directory whose name another user took first: refused, nothing written there", async () => {
    // mine/vol -> shared/vol, made by the operator before shared/vol existed; another user then made
    // shared/vol, a link to a directory of theirs (where they could read the plan) or of the operator's.
    const theirs = join(dir, 'theirs');
    await mkdir(theirs);
    await symlink(join(shared, 'vol'), join(mine, 'vol'));
    await plant(join(shared, 'vol'), { target: theirs });
    const plan = join(mine, 'vol', 'plan.json');
    const run = await runCli(['--once', '--dry-run', '--out', plan], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${join(shared, 'vol')}, on the way to ${plan}, belongs to another user (uid ${OTHER}) and lies in ${shared}`,
    );
    await expect(stat(join(theirs, 'plan.json'))).rejects.toThrow(/ENOENT/);
  });

  it('a directory another user made there first, or a link to one of theirs, on the way to the state: refused', async () => {
    const theirs = join(shared, 'acct');
    await mkdir(theirs);
    await writeFile(join(theirs, 'state.json'), JSON.stringify({ version: 1, base_url: simulator.url }));
    await lchown(join(theirs, 'state.json'), OTHER, OTHER);
    await lchown(theirs, OTHER, OTHER);
    await plant(join(shared, 'link'), { target: theirs });
    for (const state of [join(theirs, 'state.json'), join(shared, 'link', 'state.json')]) {
      const run = await runCli(['--once', '--prune'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/(acct|link), on the way to .*, belongs to another user \(uid 65534\)/);
    }
    expect(writes()).toEqual([]);
  });

  it('a kept-aside state another user named beside the state: neither read nor shown, nor in the way of deletes', async () => {
    // The operator's private state of a.example.com, protected; another user names it (a link) as a
    // copy kept aside beside a state in the shared directory, and copies it there as a file of theirs.
    const protecting = join(dir, 'protecting.yaml');
    await writeFile(protecting, 'version: 1\nwebsites:\n  - domain: a.example.com\n    protect: true\n');
    const secret = join(mine, 'state.json');
    const first = await runCli(['--once', '-f', protecting], { ...env, WEBSITES_SYNC_STATE_FILE: secret });
    expect(first.code, first.stderr).toBe(0);
    const state = join(shared, 'state.json');
    await plant(`${state}.discarded-2020-01-01T00-00-00Z`, { target: secret });
    await plant(`${state}.discarded-2020-01-02T00-00-00Z`, { text: await readFile(secret, 'utf8') });
    const run = await runCli(['--once', '--prune', '--dry-run'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^- a\.example\.com \(id \d+\)/m);
    expect(`${run.stdout}${run.stderr}`).not.toContain('protected in a state file');
    expect(run.stderr).not.toContain('discarded-2020');
  });

  it('a saved plan another user named (--plan): refused, the file their link points at not read', async () => {
    const secret = join(mine, 'secret');
    await writeFile(secret, 'root:only-for-root\n', { mode: 0o600 });
    const plan = join(shared, 'plan.json');
    await plant(plan, { target: secret });
    const run = await runCli(['--once', '--plan', plan], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${plan} belongs to another user (uid ${OTHER})`);
    expect(run.stderr).not.toContain('only-for-root');
    expect(writes()).toEqual([]);
  });

  it("the operator's own files in that directory are used as always", async () => {
    const state = join(shared, 'state.json');
    const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
    expect(run.code, run.stderr).toBe(0);
    expect((await stat(state)).mode & 0o777).toBe(0o600);
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], {
      ...env,
      WEBSITES_SYNC_STATE_FILE: state,
    });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('files of the tool that anyone could have changed', () => {
  it('a state file behind a link whose target lies up through a linked directory (`..`) is the one read and written', async () => {
    // vol -> data/deep/dir, and dir/state.json -> ../real-state.json: data/deep/real-state.json.
    await mkdir(join(dir, 'data', 'deep', 'dir'), { recursive: true });
    await symlink(join('data', 'deep', 'dir'), join(dir, 'vol'));
    await symlink(join('..', 'real-state.json'), join(dir, 'data', 'deep', 'dir', 'state.json'));
    const state = join(dir, 'vol', 'state.json');
    const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'data', 'deep', 'real-state.json'), 'utf8')).base_url).toBe(
      simulator.url,
    );
    await expect(stat(join(dir, 'real-state.json'))).rejects.toThrow(/ENOENT/);
  });

  it('a state file named through a link and `..` is where the kernel finds it, and its backups beside it', async () => {
    // Capistrano's layout: app/current -> releases/42, and current/../shared is releases/shared.
    await mkdir(join(dir, 'releases', '42'), { recursive: true });
    await mkdir(join(dir, 'releases', 'shared'));
    await mkdir(join(dir, 'app', 'shared'), { recursive: true });
    await symlink(join(dir, 'releases', '42'), join(dir, 'app', 'current'));
    const shared = `${join(dir, 'app', 'current')}/../shared`;
    const state = `${shared}/state.json`;
    const run = await runCli(['--once', '--prune'], { ...env, WEBSITES_SYNC_STATE_FILE: state });
    expect(run.code, run.stderr).toBe(0);
    const real = join(dir, 'releases', 'shared');
    expect(JSON.parse(await readFile(join(real, 'state.json'), 'utf8')).base_url).toBe(simulator.url);
    expect(await readFile(join(real, '.websites-sync-deleted.jsonl'), 'utf8')).toContain('a.example.com');
    expect(await readdir(join(dir, 'app', 'shared'))).toEqual([]);

    // No --state-file: the default state lies beside the manifest, where the kernel finds it.
    await writeFile(join(real, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: c.example.com\n');
    const { WEBSITES_SYNC_STATE_FILE: _, ...withoutState } = env;
    const beside = await runCli(['--once', '-f', `${shared}/websites.yaml`], withoutState);
    expect(beside.code, beside.stderr).toBe(0);
    expect(await readdir(real)).toContain('.websites-sync-state.json');
    expect(await readdir(join(dir, 'app', 'shared'))).toEqual([]);
  });

  it('a FIFO given as --plan is refused, not read for ever', async () => {
    const plan = join(dir, 'plan.json');
    execFileSync('mkfifo', [plan]);
    const run = await runCli(['--once', '--plan', plan], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is a FIFO');
  });

  it('a FIFO named like a state file kept aside does not hold the run (it is not one: the tool makes files)', async () => {
    const state = env.WEBSITES_SYNC_STATE_FILE as string;
    execFileSync('mkfifo', [`${state}.discarded-x`]);
    const run = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toContain('b.example.com');
  });
});
