import { spawn } from 'node:child_process';
import {
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadState, lockState } from '../../src/state/index.js';
import { readLock, removeAbandoned } from '../../src/state/lock-takeover.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'ws-lock-'));
}

describe('the state lock (one run at a time per state file)', () => {
  it('refuses a second run while the first holds it, naming the holder, and frees it on release', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await lockState(path, { command: 'websites-sync --once' });
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(
      new RegExp(
        `the state file ${path} is locked by websites-sync --once on host ${hostname()} \\(pid ${process.pid}\\) since (\\d{4}-\\d\\d-\\d\\d )?\\d\\d:\\d\\d:\\d\\d UTC; gave up waiting after 0 s .*older than 30 s`,
      ),
    );
    await first.release();
    const second = await lockState(path, { waitMs: 0 });
    await second.release();
  });

  it('gives up, by its deadline, on a lock it can never read (a link to nothing), instead of spinning', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await symlink(join(dir, 'nowhere'), `${path}.lock`);
    await expect(lockState(path, { waitMs: 200, pollMs: 20 })).rejects.toThrow(
      `the state file ${path} could not be locked: ${path}.lock is there but could not be read at any look (made and removed again each time, or a link to nothing); gave up after 0.2 s`,
    );
  }, 5_000);

  it('records who holds it: host, boot, PID namespace, pid, command and since when', async () => {
    const path = join(await tempDir(), 'state.json');
    const lock = await lockState(path, { command: 'websites-sync --once' });
    const record = JSON.parse(await readFile(`${path}.lock`, 'utf8'));
    expect(record).toMatchObject({ host: hostname(), pid: process.pid, command: 'websites-sync --once' });
    expect(record.boot_id).toBe((await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim());
    expect(record.pid_namespace).toMatch(/^pid:\[\d+\]$/);
    expect(Date.parse(record.since)).toBeGreaterThan(Date.now() - 60_000);
    await lock.release();
  });

  it('tells a waiting run who holds it, and takes it the moment it is released', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await lockState(path, { command: 'websites-sync (daemon)' });
    const told: string[] = [];
    const waiting = lockState(path, { pollMs: 5, warn: (m) => told.push(m) });
    await vi.waitFor(() => expect(told).toHaveLength(1), { timeout: 10_000 });
    expect(told[0]).toMatch(
      /is locked by websites-sync \(daemon\) on host .* waiting up to 35 s for it to finish/,
    );
    await first.release();
    await (await waiting).release();
  });

  it('keeps its heartbeat going while held, so that a long run is never taken for a dead one', async () => {
    const path = join(await tempDir(), 'state.json');
    // Stale after 3 s (a pause of a loaded machine must not pass for a dead holder).
    const first = await lockState(path, { staleMs: 3_000 });
    const beat = (await stat(`${path}.lock`)).mtimeMs;
    // Longer than the stale time: only the heartbeat keeps the lock alive.
    await vi.waitFor(async () => expect((await stat(`${path}.lock`)).mtimeMs).toBeGreaterThan(beat + 4_000), {
      timeout: 15_000,
      interval: 200,
    });
    await expect(lockState(path, { waitMs: 0, staleMs: 3_000 })).rejects.toThrow(/is locked by/);
    await first.release();
  });

  it('a lock from another PID namespace is never taken over while its heartbeat is fresh, even if its pid is gone here', async () => {
    const path = join(await tempDir(), 'state.json');
    await writeFile(`${path}.lock`, lockRecord({ pid: await deadPid(), pid_namespace: 'pid:[1]' }));
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(
      /is locked by websites-sync --once on host web-2/,
    );
  });

  it('a lock whose heartbeat is older than the stale time is taken over, saying whose it was', async () => {
    const path = join(await tempDir(), 'state.json');
    const old = new Date(Date.now() - 31_000);
    await writeFile(
      `${path}.lock`,
      lockRecord({ pid: 1, pid_namespace: 'pid:[1]', heartbeat: old.toISOString() }),
    );
    await utimes(`${path}.lock`, old, old);
    const told: string[] = [];
    const lock = await lockState(path, { waitMs: 0, warn: (m) => told.push(m) });
    expect(told).toEqual([
      expect.stringMatching(
        /^took over the lock of the state file .* from websites-sync --once on host web-2 \(pid 1\) since .*: its heartbeat is 31 s old \(over 30 s\)$/,
      ),
    ]);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  // Two runs find one lock abandoned; the first takes it over and makes its own. The second must not
  // then remove the first one's new lock.
  it('an abandoned lock is removed only if it is still the one judged, and by one remover at a time', async () => {
    const path = join(await tempDir(), 'state.json');
    const lockPath = `${path}.lock`;
    const old = new Date(Date.now() - 60_000);
    await writeFile(lockPath, `${await deadPid()}\n`);
    await utimes(lockPath, old, old);
    const judged = (await readLock(lockPath))!;
    const first = await lockState(path, { waitMs: 0 });
    expect(await removeAbandoned(lockPath, judged)).toBe(false);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    await first.release();

    await writeFile(lockPath, `${await deadPid()}\n`);
    await utimes(lockPath, old, old);
    await writeFile(`${lockPath}.takeover`, '');
    expect(await removeAbandoned(lockPath, (await readLock(lockPath))!)).toBe(false);
    await unlink(`${lockPath}.takeover`);
    expect(await removeAbandoned(lockPath, (await readLock(lockPath))!)).toBe(true);
    await expect(stat(lockPath)).rejects.toThrow(/ENOENT/);
  });

  it('takes over at once a lock of this host and PID namespace whose process died', async () => {
    const path = join(await tempDir(), 'state.json');
    await writeFile(`${path}.lock`, lockRecord({ ...(await here()), pid: await deadPid() }));
    const told: string[] = [];
    const lock = await lockState(path, { waitMs: 0, warn: (m) => told.push(m) });
    expect(told).toEqual([expect.stringMatching(/: its process \(pid \d+\) is gone$/)]);
    await lock.release();
  });

  // In a container started again in the same namespace the tool has the pid its killed predecessor had:
  // a lock naming this process, in this namespace, that this process has not taken, is a dead run's.
  it('takes over a lock that names this process in this namespace, which has not taken it', async () => {
    const path = join(await tempDir(), 'state.json');
    await writeFile(`${path}.lock`, lockRecord({ ...(await here()), pid: process.pid }));
    const lock = await lockState(path, { waitMs: 0 });
    // Held now: a second taker in this process waits like any other run.
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(`(pid ${process.pid})`);
    await lock.release();
    await expect(readFile(`${path}.lock`, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a lock of an earlier version (a pid alone) is judged by its age only', async () => {
    const path = join(await tempDir(), 'state.json');
    await writeFile(`${path}.lock`, `${await deadPid()}\n`);
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(
      /locked by an earlier version of websites-sync/,
    );
    const old = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, old, old);
    const lock = await lockState(path, { waitMs: 0 });
    await lock.release();
  });

  it("a run whose lock was taken over does not remove the new holder's lock on release", async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await lockState(path, { staleMs: 100_000 });
    await unlink(`${path}.lock`);
    const second = await lockState(path, { waitMs: 0 });
    await first.release();
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    await second.release();
  });

  it('a stop ends the wait at once', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await lockState(path);
    const stop = new AbortController();
    const waiting = lockState(path, { signal: stop.signal, warn: () => stop.abort(new Error('stopped')) });
    await expect(waiting).rejects.toThrow('stopped');
    await first.release();
  });

  it('refuses a state path that is a directory, before anything is sent', async () => {
    const path = join(await tempDir(), 'state.json');
    await mkdir(path);
    await expect(lockState(path)).rejects.toThrow(/state file .* is a directory; point --state-file/);
  });
});

/** A pid no process has now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((done) => child.on('exit', done));
  return child.pid!;
}

/** Where this process runs, as a lock records it. */
async function here(): Promise<Record<string, string>> {
  return {
    host: hostname(),
    boot_id: (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim(),
    pid_namespace: await readlink('/proc/self/ns/pid'),
  };
}

function lockRecord(fields: Record<string, string | number>): string {
  const now = new Date().toISOString();
  return `${JSON.stringify({ host: 'web-2', command: 'websites-sync --once', since: now, heartbeat: now, ...fields })}\n`;
}

describe('a state file with one malformed entry', () => {
  it('keeps the valid entries and treats the malformed one as unknown', async () => {
    const path = join(await tempDir(), 'state.json');
    await writeFile(
      path,
      JSON.stringify({
        version: 1,
        base_url: 'https://stats.example.com',
        salt: '0123456789abcdef0123',
        websites: {
          1: { domain: 'a.example.com', fingerprints: null },
          2: { domain: 'b.example.com', fingerprints: { exclude_params: 'x' } },
          3: { domain: 'c.example.com', fingerprints: {}, normalised: { email: 'oops' } },
          4: 'nonsense',
        },
      }),
    );
    const { state, discarded } = await loadState(path, 'https://stats.example.com', 'secret');
    // Used all the same; reported so that the file is kept aside before it is rewritten.
    expect(discarded).toBe("some of its entries cannot be read (website's fingerprints: 3 entries)");
    expect(Object.keys(state.websites)).toEqual(['2']);
  });
});
