import type { PathLike } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyState, loadState, openForWriting, openPrivateFile, saveState } from '../../src/state/index.js';
import { readLock } from '../../src/state/lock-takeover.js';

// Another user can make a name in a directory anyone can write (/tmp) at any moment: between the
// tool's check of a path (refusePlanted) and its open. A link made there then would lead the write
// into a file of the operator's, which the check on the opened file cannot tell from the operator's
// own. The window is made here on purpose: `open` (or `readlink`, with `on`) of the watched path
// first runs `before` (or, with `after`, right after the open).

const armed: {
  on?: 'open' | 'readlink';
  path?: string | RegExp;
  before?: (path: string) => Promise<void>;
  /** Run once `open` has opened the watched path instead of before: a change between open and check. */
  after?: boolean;
  always?: boolean;
} = {};

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const watch = async (call: 'open' | 'readlink', path: PathLike) => {
    const watched = armed.path;
    const hit = typeof watched === 'string' ? path === watched : watched?.test(String(path));
    if ((armed.on ?? 'open') === call && hit && armed.before) {
      const before = armed.before;
      if (!armed.always) armed.before = undefined; // once, unless always
      await before(String(path));
    }
  };
  const open = async (path: PathLike, ...rest: [string | number, number?]) => {
    if (!armed.after) await watch('open', path);
    const handle = await real.open(path, ...rest);
    if (armed.after) await watch('open', path);
    return handle;
  };
  const readlink = async (path: PathLike) => {
    await watch('readlink', path);
    return real.readlink(path);
  };
  return { ...real, open, readlink };
});

const OTHER = 65534; // nobody: a link of another user's needs root (lchown)
const asRoot = process.getuid?.() === 0;

let shared: string;
let victim: string;

beforeEach(async () => {
  const dir = await fs.mkdtemp(join(tmpdir(), 'ws-write-race-'));
  shared = join(dir, 'shared');
  await fs.mkdir(shared);
  await fs.chmod(shared, 0o1777); // like /tmp
  victim = join(dir, 'victim');
  await fs.writeFile(victim, 'mine\n', { mode: 0o644 });
  armed.on = undefined;
  armed.path = undefined;
  armed.before = undefined;
  armed.after = undefined;
  armed.always = undefined;
});

/**
 * Just before `path` (or the first path it matches) is opened (or read as a link, `on`), another user
 * links it to the victim: where nothing was, or in place of what was (`replace`).
 */
function plantLinkAtOpen(
  path: string | RegExp,
  { on, replace }: { on?: 'open' | 'readlink'; replace?: boolean } = {},
): void {
  armed.on = on;
  armed.path = path;
  armed.before = async (opened) => {
    if (replace) await fs.unlink(opened);
    await fs.symlink(victim, opened);
    await fs.lchown(opened, OTHER, OTHER);
  };
}

/** Right after every open of `path`, the file there is moved to `path.N` and a new one holds `text`. */
function replaceAfterEveryOpen(path: string, text: string): void {
  armed.path = path;
  armed.always = true;
  armed.after = true;
  let replaced = 0;
  armed.before = async (opened) => {
    // Kept under another name, so that the new file cannot be given its inode number.
    await fs.rename(opened, `${opened}.${++replaced}`);
    await fs.writeFile(opened, text);
  };
}

async function victimUntouched(): Promise<void> {
  expect(await fs.readFile(victim, 'utf8')).toBe('mine\n');
  expect((await fs.stat(victim)).mode & 0o777).toBe(0o644);
}

describe.skipIf(!asRoot)('a link another user makes between the check and the open', () => {
  it.each(['w', 'a'] as const)(
    'is not followed by a private file (a saved plan, a backup: %s)',
    async (flags) => {
      const path = join(shared, 'plan.json');
      plantLinkAtOpen(path);
      await expect(openPrivateFile(path, flags)).rejects.toThrow(
        `${path} belongs to another user (uid ${OTHER}) and lies in ${shared}, a directory anyone can write`,
      );
      await victimUntouched();
    },
  );

  it('is not followed where it replaced an existing file (a directory anyone can write, not sticky)', async () => {
    // Without the sticky bit, anyone may rename over the operator's file: here, their link.
    await fs.chmod(shared, 0o777);
    const path = join(shared, 'deleted.jsonl');
    await fs.writeFile(path, 'first\n');
    plantLinkAtOpen(path, { replace: true });
    await expect(openPrivateFile(path, 'a')).rejects.toThrow(
      `${path} belongs to another user (uid ${OTHER})`,
    );
    await victimUntouched();
  });

  it("is not followed where it replaced the operator's own link while that was read", async () => {
    const path = join(shared, 'plan.json');
    await fs.symlink(join(shared, 'mine.json'), path);
    plantLinkAtOpen(path, { on: 'readlink', replace: true });
    await expect(openPrivateFile(path, 'w')).rejects.toThrow(
      `${path} belongs to another user (uid ${OTHER})`, // seen replaced, looked at again: their link
    );
    await victimUntouched();
  });

  it('writes nothing where a directory on the way was replaced by a link after the check', async () => {
    // Without the sticky bit, anyone may rename the operator's directory away and put a link there.
    await fs.chmod(shared, 0o777);
    const theirs = join(shared, '..', 'theirs');
    await fs.mkdir(theirs);
    const folder = join(shared, 'acct');
    await fs.mkdir(folder);
    const path = join(folder, 'plan.json');
    armed.path = path;
    armed.before = async () => {
      await fs.rename(folder, join(shared, 'acct-away'));
      await fs.symlink(theirs, folder);
      await fs.lchown(folder, OTHER, OTHER);
    };
    await expect(openPrivateFile(path, 'w')).rejects.toThrow(
      `${folder}, on the way to ${path}, belongs to another user (uid ${OTHER})`,
    );
    // The open made the file where the link led before the tool saw it; it holds nothing of the plan.
    expect(await fs.readFile(join(theirs, 'plan.json'), 'utf8')).toBe('');
  });

  it('writes nothing into a directory another user made on the way after the check', async () => {
    const folder = join(shared, 'new');
    const path = join(folder, 'plan.json');
    armed.path = path;
    armed.before = async () => {
      await fs.mkdir(folder, { mode: 0o755 });
      await fs.chown(folder, OTHER, OTHER);
    };
    await expect(openPrivateFile(path, 'w')).rejects.toThrow(
      `${folder}, on the way to ${path}, belongs to another user (uid ${OTHER})`,
    );
    expect(await fs.readFile(path, 'utf8')).toBe('');
  });

  it('is not followed by a read of the state: refused, the file it points at not read', async () => {
    const path = join(shared, 'state.json');
    await fs.writeFile(path, JSON.stringify(emptyState('https://stats.example.com')));
    plantLinkAtOpen(path, { replace: true });
    await expect(loadState(path, 'https://stats.example.com', 'secret')).rejects.toThrow(
      `${path} belongs to another user (uid ${OTHER})`,
    );
  });

  it("is not followed by the state's temporary file", async () => {
    plantLinkAtOpen(/\.tmp$/);
    await expect(
      saveState(join(shared, 'state.json'), emptyState('https://stats.example.com')),
    ).rejects.toThrow(`belongs to another user (uid ${OTHER})`);
    await victimUntouched();
  });

  it('is not followed by an exported manifest replaced with --force', async () => {
    const path = join(shared, 'account.yaml');
    plantLinkAtOpen(path);
    await expect(openForWriting(path, 'w', { private: false })).rejects.toThrow(
      `${path} belongs to another user (uid ${OTHER})`,
    );
    await victimUntouched();
  });
});

describe('a name that turns up between the check and the open', () => {
  it("is the operator's own file, appended to, not replaced (two runs adding to one backup file)", async () => {
    const path = join(shared, 'deleted.jsonl');
    armed.path = path;
    armed.before = (opened) => fs.writeFile(opened, 'first\n');
    const handle = await openPrivateFile(path, 'a');
    await handle.write('second\n');
    await handle.close();
    expect(await fs.readFile(path, 'utf8')).toBe('first\nsecond\n');
    expect((await fs.stat(path)).mode & 0o777).toBe(0o600);
  });

  it('is given up, nothing written, when the file is replaced after every open (another process at work)', async () => {
    const path = join(shared, 'deleted.jsonl');
    await fs.writeFile(path, 'first\n');
    replaceAfterEveryOpen(path, 'replaced\n');
    await expect(openPrivateFile(path, 'a')).rejects.toThrow(
      `${path} was made, removed or replaced by another process each of the 3 times it was opened; nothing was written to it`,
    );
    expect(await fs.readFile(path, 'utf8')).toBe('replaced\n');
    expect(await fs.readFile(`${path}.1`, 'utf8')).toBe('first\n');
  });

  it('a lock taken and released again at every look is no lock for a waiting run (it looks again)', async () => {
    const path = join(shared, 'state.json.lock');
    await fs.writeFile(path, '{"pid":1}');
    replaceAfterEveryOpen(path, '{"pid":2}');
    await expect(readLock(path)).resolves.toBeUndefined();
  });

  it("fails an open for a new file ('wx': an export without --force) with EEXIST", async () => {
    const path = join(shared, 'account.yaml');
    armed.path = path;
    armed.before = (opened) => fs.writeFile(opened, 'theirs\n');
    await expect(openForWriting(path, 'wx', { private: false })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await fs.readFile(path, 'utf8')).toBe('theirs\n');
  });
});
