// Node's compile cache holds V8 bytecode that Node runs in place of a module's source, checked only
// against checksums anyone can compute: whoever can write its directory runs code in this process,
// with the API key in its environment. Node's default directory, `os.tmpdir()/node-compile-cache`, is
// shared by every user of the machine, and the per-user directory Node makes in it has a name anyone
// can predict and make first (another user's entry planted there ran in a run of this CLI and read
// WEBSITES_SYNC_API_KEY). So the CLI keeps its cache in a directory of its user's own, reached through
// directories nobody else can change, or runs without one, and then without the code cache of its own
// script too (script-cache.ts): about 60% slower to start, the same in all else.
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, type PlatformPath, relative, sep } from 'node:path';

/** What the checks read of a directory (fs.Stats). */
export interface DirectoryStat {
  uid: number;
  mode: number;
  isDirectory(): boolean;
}

/**
 * Turns on Node's compile cache in `<tmpdir>/websites-sync-compile-cache-<uid>` when that directory and
 * every directory above it are safe from other users (see `safeFrom`); returns the directory, or
 * undefined when the cache stays off. A `NODE_COMPILE_CACHE` the operator set is theirs: Node already
 * uses it, and this changes nothing. Never throws: the cache is an optimisation.
 */
export function enableOwnCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const uid = process.getuid?.();
    const name = uid === undefined ? 'websites-sync-compile-cache' : `websites-sync-compile-cache-${uid}`;
    const dir = join(realpathSync(tmpdir()), name);
    // Windows has no uid: see insideProfile.
    if (uid === undefined && !insideProfile(dir, realpathSync(homedir()))) return undefined;
    if (uid !== undefined) {
      if (!safeFrom(dirname(dir), uid, false, lstatSync)) return undefined;
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
      }
      if (!safeFrom(dir, uid, true, lstatSync)) return undefined;
    }
    return enableCompileCache(dir).directory;
  } catch {
    return undefined;
  }
}

/**
 * Windows, which has no uid to check: whether the cache directory lies in the user's profile (`home`),
 * as a user's temporary directory does (`%LOCALAPPDATA%\Temp`), which nobody else can write. A service
 * running as SYSTEM has `C:\Windows\Temp`, where every user can make a folder first: no cache there.
 */
export function insideProfile(
  dir: string,
  home: string,
  paths: Pick<PlatformPath, 'isAbsolute' | 'relative' | 'sep'> = { isAbsolute, relative, sep },
): boolean {
  const inside = paths.relative(home, dir);
  return (
    inside !== '' && inside !== '..' && !inside.startsWith(`..${paths.sep}`) && !paths.isAbsolute(inside)
  );
}

/**
 * Whether no user but `uid` and root can change what `dir` holds, `dir` being a real path (no symbolic
 * links): `dir` is a directory `uid` owns that nobody else can write (or, unless `own`, that root owns,
 * or that others can write but its sticky bit keeps them from renaming or removing what they do not
 * own: /tmp), and so is each directory above it up to `/`. Another user's directory anywhere on the
 * way could swap what lies below it.
 */
export function safeFrom(
  dir: string,
  uid: number,
  own: boolean,
  stat: (path: string) => DirectoryStat,
): boolean {
  for (let path = dir, first = true; ; path = dirname(path), first = false) {
    const found = stat(path);
    if (!found.isDirectory()) return false;
    const mine = found.uid === uid;
    if (first && own) {
      if (!mine || (found.mode & 0o022) !== 0) return false;
    } else if ((!mine && found.uid !== 0) || ((found.mode & 0o022) !== 0 && (found.mode & 0o1000) === 0)) {
      return false;
    }
    if (dirname(path) === path) return true;
  }
}
