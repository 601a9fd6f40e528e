import { chmod, mkdir, mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// Node's compile cache holds bytecode Node runs in place of the CLI's source: a directory another user
// can write would let them run code in the CLI, with its API key (compile-cache.ts). Node's own default,
// TMPDIR/node-compile-cache, is such a directory on a machine with more than one user.
const own = `websites-sync-compile-cache-${process.getuid?.() ?? ''}`;

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe.skipIf(process.platform === 'win32')("the CLI's compile cache", () => {
  it("lives in a directory only its user can open, never in Node's shared one", async () => {
    const temp = await mkdtemp(join(tmpdir(), 'compile-cache-'));
    const result = await runCli(['--version'], { TMPDIR: temp });
    expect(result.code).toBe(0);
    expect(await readdir(temp)).toEqual([own]);
    expect((await stat(join(temp, own))).mode & 0o777).toBe(0o700);
    expect((await filesUnder(join(temp, own))).length).toBeGreaterThan(0);
  });

  it('is not used where another user could have planted code: a directory others can write, made before the run', async () => {
    const temp = await mkdtemp(join(tmpdir(), 'compile-cache-'));
    await chmod(temp, 0o1777); // like /tmp
    for (const planted of ['node-compile-cache', own]) {
      await mkdir(join(temp, planted));
      await chmod(join(temp, planted), 0o777);
    }
    const result = await runCli(['--version'], { TMPDIR: temp });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^websites-sync \d/);
    expect(await filesUnder(temp)).toEqual([]);
  });

  it('is not made below a directory others can write that lacks the sticky bit (they could swap it)', async () => {
    const temp = await mkdtemp(join(tmpdir(), 'compile-cache-'));
    await chmod(temp, 0o777);
    const result = await runCli(['--version'], { TMPDIR: temp });
    expect(result.code).toBe(0);
    expect(await readdir(temp)).toEqual([]);
  });

  it('stays where the operator put it with NODE_COMPILE_CACHE', async () => {
    const temp = await mkdtemp(join(tmpdir(), 'compile-cache-'));
    const chosen = join(temp, 'chosen');
    const result = await runCli(['--version'], { TMPDIR: temp, NODE_COMPILE_CACHE: chosen });
    expect(result.code).toBe(0);
    expect(await readdir(temp)).toEqual(['chosen']);
    expect((await filesUnder(chosen)).length).toBeGreaterThan(0);
  });
});
