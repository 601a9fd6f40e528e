import { execFileSync } from 'node:child_process';
import { mkdtemp, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyState, lockState, openPrivateFile, saveState } from '../../src/state/index.js';

// A path the tool writes (the state, a backup, a saved plan) that holds a device, a FIFO or a socket
// must be refused, not replaced by a regular file (the state's atomic rename), chmod-ed to 0600 or
// written into (a FIFO blocks an open for writing until someone reads it). A FIFO stands for them all.

async function fifo(): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'ws-special-')), 'state.json');
  execFileSync('mkfifo', ['-m', '0644', path]);
  return path;
}

async function stillFifo(path: string): Promise<void> {
  const info = await stat(path);
  expect(info.isFIFO()).toBe(true);
  expect(info.mode & 0o777).toBe(0o644);
}

describe('a path the tool writes that is not a regular file', () => {
  it('is refused as the state file by the lock, before anything is sent', async () => {
    const path = await fifo();
    await expect(lockState(path, { waitMs: 0 })).rejects.toThrow(
      `the state file ${path} is a FIFO, not a regular file; point --state-file (WEBSITES_SYNC_STATE_FILE) at a regular file`,
    );
    await stillFifo(path);
  });

  it('is not replaced by saving the state', async () => {
    const path = await fifo();
    await expect(saveState(path, emptyState('https://stats.example.com'))).rejects.toThrow(
      `${path} is a FIFO, not a regular file`,
    );
    await stillFifo(path);
  });

  it.each(['w', 'a'] as const)('is neither opened nor chmod-ed for a private file (%s)', async (flags) => {
    const path = await fifo();
    await expect(openPrivateFile(path, flags)).rejects.toThrow(`${path} is a FIFO, not a regular file`);
    await stillFifo(path);
  });
});

describe('a path the tool writes whose links go round in a loop', () => {
  it('is refused as a loop, not as a file that keeps changing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ws-loop-'));
    await symlink(join(dir, 'b'), join(dir, 'a'));
    await symlink(join(dir, 'a'), join(dir, 'b'));
    await expect(openPrivateFile(join(dir, 'a'), 'a')).rejects.toThrow(
      `${join(dir, 'a')}: more than 40 symbolic links on the way (a loop?)`,
    );
  });
});
