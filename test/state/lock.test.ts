import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadState, lockState } from '../../src/state/index.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'ws-lock-'));
}

describe('the state lock (one run at a time per state file)', () => {
  it('refuses a second run while the first holds it, naming its pid, and frees it on release', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await lockState(path);
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(
      `another run (pid ${process.pid}) holds ${path}; wait for it to finish`,
    );
    await first.release();
    const second = await lockState(path, { waitMs: 0 });
    await second.release();
  });

  it('takes over a lock left by a process that died', async () => {
    const path = join(await tempDir(), 'state.json');
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid!;
    await new Promise((done) => child.on('exit', done));
    await writeFile(`${path}.lock`, `${pid}\n`);
    const lock = await lockState(path, { waitMs: 0 });
    expect(await readFile(`${path}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    await lock.release();
  });

  // In a container the tool is PID 1 on every start: a lock left by a run killed there says 1, which
  // is this process's own pid. This process holds no lock on the path, so that lock is a dead run's.
  it('takes over a lock that names this process, which has not taken it', async () => {
    const path = join(await tempDir(), 'state.json');
    await writeFile(`${path}.lock`, `${process.pid}\n`);
    const lock = await lockState(path, { waitMs: 0 });
    expect(await readFile(`${path}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    // Held now: a second taker in this process waits like any other run.
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(`another run (pid ${process.pid})`);
    await lock.release();
    await expect(readFile(`${path}.lock`, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses a state path that is a directory, before anything is sent', async () => {
    const path = join(await tempDir(), 'state.json');
    await mkdir(path);
    await expect(lockState(path)).rejects.toThrow(/state file .* is a directory; point --state-file/);
  });
});

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

// Issue 19 §5: a stop ends every wait within a second, the wait for another run's lock included.
describe('waiting for another run, stopped', () => {
  it('ends at once when the run stops, long before the wait would have given up', async () => {
    const path = join(await tempDir(), 'state.json');
    const held = await lockState(path);
    const stop = new AbortController();
    const waiting = lockState(path, { waitMs: 60_000, signal: stop.signal });
    const stoppedAt = Date.now();
    stop.abort();
    await expect(waiting).rejects.toThrow(expect.objectContaining({ name: 'AbortError' }));
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    await held.release();
  });
});
