import { execFileSync, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';

// State that cannot diverge or wedge the tool (issue 10 §5), from the built CLI.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-state-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    'version: 1\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n',
  );
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

describe('the state file', () => {
  it('a state path that is a directory: exit 1 naming it, before any change is sent', async () => {
    await mkdir(env.WEBSITES_SYNC_STATE_FILE as string);
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `WEBSITES_SYNC_STATE_FILE: ${env.WEBSITES_SYNC_STATE_FILE} is a directory; give the path of a file`,
    );
    expect(run.stderr).not.toContain('internal error');
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a malformed entry is unknown for its website alone: the run converges instead of crashing', async () => {
    const id = simulator.listWebsites()[0]!.id;
    await writeFile(
      env.WEBSITES_SYNC_STATE_FILE as string,
      JSON.stringify({
        version: 1,
        base_url: simulator.url,
        salt: '0123456789abcdef0123',
        websites: { [id]: { domain: 'a.example.com', fingerprints: null } },
      }),
    );
    const run = await runCli(['--once'], env);
    expect(run.code, run.stderr).toBe(0);
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
  });

  it('what it held of a website deleted outside the tool is forgotten by the next run', async () => {
    const manifest = 'version: 1\nwebsites:\n  - domain: a.example.com\n';
    await writeFile(
      join(dir, 'websites.yaml'),
      `${manifest}  - domain: b.example.com\n    exclude_params: [ref]\n`,
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    const b = simulator.listWebsites().find((w) => w.domain === 'b.example.com')!;
    const held = async () =>
      Object.keys(JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE!, 'utf8')).websites);
    expect(await held()).toContain(String(b.id));
    // Deleted in the web interface, and taken out of the manifest.
    simulator.deleteWebsite(b.id);
    await writeFile(join(dir, 'websites.yaml'), manifest);
    expect((await runCli(['--once', '--dry-run'], env)).code).toBe(0);
    expect(await held()).toContain(String(b.id)); // a dry run writes nothing
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(await held()).not.toContain(String(b.id));
  });

  it('a state file reached through a symlink is written where it is, so what it protects stays protected', async () => {
    const volume = join(dir, 'volume');
    await mkdir(volume);
    const real = join(volume, 'state.json');
    const link = join(dir, 'state-link.json');
    await writeFile(real, '{}\n');
    await symlink(real, link);
    const runEnv = { ...env, WEBSITES_SYNC_STATE_FILE: link };
    await writeFile(
      env.WEBSITES_SYNC_MANIFEST as string,
      'version: 1\nwebsites:\n  - domain: a.example.com\n    protect: true\n  - domain: b.example.com\n',
    );
    expect((await runCli(['--once'], runEnv)).code).toBe(0);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    const id = simulator.listWebsites().find((w) => w.domain === 'a.example.com')?.id;
    expect(JSON.parse(await readFile(real, 'utf8'))).toMatchObject({ protected: { [String(id)]: {} } });

    await writeFile(
      env.WEBSITES_SYNC_MANIFEST as string,
      'version: 1\nprune: true\nwebsites:\n  - domain: b.example.com\n',
    );
    const pruned = await runCli(['--once'], runEnv);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('a.example.com');

    // Its lock is beside the file it really is: no output may land there either.
    const overLock = await runCli(['--once', '--dry-run', '--out', `${real}.lock`], runEnv);
    expect(overLock.code).toBe(1);
    expect(overLock.stderr).toContain("that is the state file's lock");
  });

  it('a lock whose heartbeat stopped long ago (a run that died) is taken over, saying whose it was', async () => {
    const lockPath = `${env.WEBSITES_SYNC_STATE_FILE}.lock`;
    await writeFile(lockPath, '2147483646\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath, old, old);
    const run = await runCli(['--once'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('from an earlier version of websites-sync (pid 2147483646, host unknown)');
  });
});

// Two containers sharing the state's volume are both PID 1, each in its own PID namespace: a pid read
// in one names another process in the other. Only where a PID namespace can be made (root, or user
// namespaces allowed); the unit tests cover the rules elsewhere.
describe('the state lock across PID namespaces', () => {
  const unshare = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];
  const canUnshare = spawnSync(unshare[0] as string, [...unshare.slice(1), 'true']).status === 0;

  it.skipIf(!canUnshare)(
    'a second run as PID 1 of another namespace waits for the first, naming it, and keeps what it recorded',
    async () => {
      simulator.createWebsite({ domain: 'b.example.com' });
      const [idA, idB] = ['a.example.com', 'b.example.com'].map((d) => idOf(d));
      // Each run protects one website and leaves the other alone (prune is off).
      const manifest = (domain: string) =>
        `version: 1\nwebsites:\n  - domain: ${domain}\n    protect: true\n`;
      await writeFile(join(dir, 'first.yaml'), manifest('a.example.com'));
      await writeFile(join(dir, 'second.yaml'), manifest('b.example.com'));
      // The service answers nothing until both runs are under way: each has read the state by then.
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      simulator.onRequest = () => gate;
      const lockPath = `${env.WEBSITES_SYNC_STATE_FILE}.lock`;
      const first = startCli(
        ['--once'],
        { ...env, WEBSITES_SYNC_MANIFEST: join(dir, 'first.yaml') },
        unshare,
      );
      await vi.waitFor(() => stat(lockPath), { timeout: 10_000, interval: 20 });
      const second = startCli(
        ['--once'],
        { ...env, WEBSITES_SYNC_MANIFEST: join(dir, 'second.yaml') },
        unshare,
      );
      await vi
        .waitFor(() => expect(second.output().stderr).toContain('is locked by'), {
          timeout: 10_000,
          interval: 20,
        })
        .finally(open);
      expect(second.output().stderr).toMatch(
        new RegExp(
          `locked by websites-sync --once on host ${hostname()} \\(pid 1\\) since (\\d{4}-\\d\\d-\\d\\d )?\\d\\d:\\d\\d:\\d\\d UTC; waiting up to 35 s`,
        ),
      );
      const [one, two] = await Promise.all([first.done, second.done]);
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      // Neither protection was lost to the other run's write.
      const state = JSON.parse(await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8'));
      expect(Object.keys(state.protected).sort()).toEqual([String(idA), String(idB)].sort());
    },
  );

  it.skipIf(!canUnshare)(
    'as PID 1, a lock left by a killed run (PID 1 of another namespace) is taken over once its heartbeat is stale',
    async () => {
      const lockPath = `${env.WEBSITES_SYNC_STATE_FILE}.lock`;
      const old = new Date(Date.now() - 45_000);
      const since = new Date(Date.now() - 600_000).toISOString();
      await writeFile(
        lockPath,
        `${JSON.stringify({ host: 'web-2', pid: 1, command: 'websites-sync (daemon)', since, heartbeat: old.toISOString(), pid_namespace: 'pid:[4026532000]' })}\n`,
      );
      await utimes(lockPath, old, old);
      const run = await startCli(['--once'], env, unshare).done;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(
        /took over the lock of the state file .* from websites-sync \(daemon\) on host web-2 \(pid 1\) since (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC: its heartbeat is \d+ s old \(over 30 s\)/,
      );
      expect(simulator.listWebsites().map((w) => w.domain)).toContain('b.example.com');
      await expect(readFile(lockPath, 'utf8')).rejects.toThrow(/ENOENT/);
    },
  );
});

function idOf(domain: string): number | undefined {
  return simulator.listWebsites().find((w) => w.domain === domain)?.id;
}

// A device, a FIFO or a socket where the tool writes: refused before any request, naming the option or
// variable and the path, and left as it was (the atomic rename would have replaced /dev/null with a
// regular file, as root). A FIFO stands for them all.
describe('a path the tool writes that is not a regular file', () => {
  async function fifo(name: string): Promise<string> {
    const path = join(dir, name);
    execFileSync('mkfifo', [path]);
    return path;
  }

  async function refusedBeforeAnyRequest(args: string[], runEnv: Record<string, string>, message: string) {
    const run = await runCli(args, runEnv);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('internal error');
    expect(simulator.requests).toEqual([]);
  }

  it('the state file, from the variable or the option, also for a dry run', async () => {
    const path = await fifo('state.fifo');
    const message = `${path} is a FIFO, not a regular file; give the path of a regular file`;
    await refusedBeforeAnyRequest(
      ['--once'],
      { ...env, WEBSITES_SYNC_STATE_FILE: path },
      `WEBSITES_SYNC_STATE_FILE: ${message}`,
    );
    await refusedBeforeAnyRequest(
      ['--once', '--dry-run', '--state-file', path],
      env,
      `--state-file: ${message}`,
    );
    expect((await stat(path)).isFIFO()).toBe(true);
  });

  it('the backup file, named or beside the state file', async () => {
    const named = await fifo('backup.fifo');
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\nwebsites:\n  - domain: b.example.com\n',
    );
    await refusedBeforeAnyRequest(
      ['--once', '--backup-file', named],
      env,
      `--backup-file: ${named} is a FIFO, not a regular file; give the path of a regular file`,
    );
    const beside = await fifo('.websites-sync-deleted.jsonl');
    await refusedBeforeAnyRequest(
      ['--once'],
      env,
      `the backup file ${beside} (beside the state file) is a FIFO, not a regular file; set --backup-file (WEBSITES_SYNC_BACKUP_FILE) to a regular file`,
    );
    expect((await stat(beside)).isFIFO()).toBe(true);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);
    const restore = await runCli(['restore'], env);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain(`the backup file ${beside} (beside the state file) is a FIFO`);
  });

  it('the saved plan (--out)', async () => {
    const path = await fifo('plan.fifo');
    await refusedBeforeAnyRequest(
      ['--once', '--dry-run', '--out', path],
      env,
      `--out: ${path} is a FIFO, not a regular file; give the path of a regular file`,
    );
  });
});
