import { execFileSync, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

  it('a lock left by a run that died is taken over', async () => {
    await writeFile(`${env.WEBSITES_SYNC_STATE_FILE}.lock`, '2147483646\n');
    const run = await runCli(['--once'], env);
    expect(run.code, run.stderr).toBe(0);
  });

  // In a container the tool runs as PID 1 each time: a run killed there (SIGKILL, OOM) leaves a lock
  // saying 1, and the next start, PID 1 again, must not take it for a live run. Only where a PID
  // namespace can be made (root, or user namespaces allowed); the unit test covers the rule elsewhere.
  const unshare = ['unshare', '--pid', '--fork', '--kill-child'];
  const canUnshare = spawnSync(unshare[0] as string, [...unshare.slice(1), 'true']).status === 0;
  it.skipIf(!canUnshare)('as PID 1, a lock saying 1 left by a killed run is taken over', async () => {
    const lockPath = `${env.WEBSITES_SYNC_STATE_FILE}.lock`;
    await writeFile(lockPath, '1\n');
    const run = await startCli(['--once'], env, unshare).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('another run');
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('b.example.com');
    await expect(readFile(lockPath, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

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
