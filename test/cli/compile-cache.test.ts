import { win32 } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DirectoryStat, insideProfile, safeFrom } from '../../src/cli/compile-cache.js';

const ME = 1000;
const OTHER = 1001;

/** A file system of directories (and one link) by path, as lstat sees them. */
function tree(entries: Record<string, { uid: number; mode: number; link?: true }>) {
  return (path: string): DirectoryStat => {
    const entry = entries[path];
    if (!entry) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return { uid: entry.uid, mode: entry.mode, isDirectory: () => entry.link !== true };
  };
}

const base = { '/': { uid: 0, mode: 0o755 }, '/tmp': { uid: 0, mode: 0o1777 } };

describe('safeFrom: may the compile cache live here (nobody but its user or root can change it)?', () => {
  it('takes a private directory of its own under /tmp, whose sticky bit keeps others from swapping it', () => {
    const stat = tree({ ...base, '/tmp/cache': { uid: ME, mode: 0o700 } });
    expect(safeFrom('/tmp/cache', ME, true, stat)).toBe(true);
    expect(safeFrom('/tmp', ME, false, stat)).toBe(true);
  });

  it.each([
    ['another user made it first', { uid: OTHER, mode: 0o700 }],
    ['others can write into it', { uid: ME, mode: 0o777 }],
    ['its group can write into it', { uid: ME, mode: 0o770 }],
    ["root's (the cache must be the user's own)", { uid: 0, mode: 0o755 }],
  ])('refuses the cache directory when %s', (_, cache) => {
    expect(safeFrom('/tmp/cache', ME, true, tree({ ...base, '/tmp/cache': cache }))).toBe(false);
  });

  it('refuses a symbolic link where the directory should be', () => {
    const stat = tree({ ...base, '/tmp/cache': { uid: ME, mode: 0o777, link: true } });
    expect(safeFrom('/tmp/cache', ME, true, stat)).toBe(false);
  });

  it.each([
    ["another user's home", { uid: OTHER, mode: 0o755 }],
    ['a directory anyone can write, without the sticky bit', { uid: 0, mode: 0o777 }],
    ['a directory its group can write, without the sticky bit', { uid: ME, mode: 0o775 }],
  ])('refuses a cache directory below %s, who could swap it', (_, parent) => {
    const stat = tree({
      ...base,
      '/home': { uid: 0, mode: 0o755 },
      '/home/x': parent,
      '/home/x/cache': { uid: ME, mode: 0o700 },
    });
    expect(safeFrom('/home/x/cache', ME, true, stat)).toBe(false);
  });

  it("takes one below the user's own home and root's directories", () => {
    const stat = tree({
      ...base,
      '/home': { uid: 0, mode: 0o755 },
      '/home/me': { uid: ME, mode: 0o750 },
      '/home/me/cache': { uid: ME, mode: 0o700 },
    });
    expect(safeFrom('/home/me/cache', ME, true, stat)).toBe(true);
  });

  it('refuses when anything on the way is writable by others, however far up', () => {
    const stat = tree({
      '/': { uid: 0, mode: 0o777 },
      '/tmp': { uid: 0, mode: 0o1777 },
      '/tmp/cache': { uid: ME, mode: 0o700 },
    });
    expect(safeFrom('/tmp/cache', ME, true, stat)).toBe(false);
  });
});

describe('insideProfile: Windows, which has no uid to check', () => {
  const home = 'C:\\Users\\ops';
  it("takes the user's own temporary directory, in their profile", () => {
    expect(
      insideProfile('C:\\Users\\ops\\AppData\\Local\\Temp\\websites-sync-compile-cache', home, win32),
    ).toBe(true);
  });

  it.each([
    [
      "SYSTEM's C:\\Windows\\Temp, where every user can make a folder first",
      'C:\\Windows\\Temp\\websites-sync-compile-cache',
    ],
    ["another user's profile beside this one", 'C:\\Users\\ops2\\AppData\\Local\\Temp\\x'],
    ['another drive', 'D:\\Temp\\x'],
    ['the profile itself', home],
  ])('refuses %s', (_, dir) => {
    expect(insideProfile(dir, home, win32)).toBe(false);
  });
});
