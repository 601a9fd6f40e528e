// What a save leaves behind (script-cache.ts). Every build of the CLI names its caches by its own id, so
// an upgrade left the old build's files (about 2 MB) in the cache directory for ever, and a run
// killed while saving left its `.partial` file there too: on a CI runner with a persistent cache, or a
// host upgraded weekly, the directory only grew. A run that saves a cache now removes, in the same
// directory, what is no longer of use:
// - a cache of another build not used for STALE_CACHE_MS (a week). Not every other build's cache: two
//   builds used alternately on one machine (a global install and a project-local one, two projects
//   pinned to two versions) would remove each other's at each save and each compile at every run. A
//   run that loads a cache marks it used (`markUsed`, at most once a day), so a build in use keeps its
//   own, and one not run for a week (replaced, uninstalled) loses its at the next save of any build.
// - a `.partial` file not written for STALE_PARTIAL_MS (an hour). A save writes it in one writeFileSync
//   of about 1.5 MB, milliseconds, then renames it; one written to an hour ago is a save that died. Even
//   a save still alive (a process stopped mid-write, a suspended machine) loses only that save: its
//   rename fails, and it runs on without making the cache.
// An age counts either way: an mtime in the future (written while the clock was ahead, then set right)
// would otherwise keep a file until that date; a cache in use has its mtime set to now when loaded.
// Only names this tool writes, matched exactly, and only regular files owned by the user the run is:
// never a link or a directory named like one (this tool makes neither), never another user's file in
// a directory shared through NODE_COMPILE_CACHE. Windows has no uid to check: nothing is removed there.
// Never throws: the cache is an optimisation, and a failure to prune leaves the run as it was.
import { lstatSync, readdirSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a cache of another build may go unused before a save removes it. */
const STALE_CACHE_MS = 7 * DAY_MS;
/** How long after its last write a `.partial` file is taken for one a dead save left. */
const STALE_PARTIAL_MS = 60 * 60 * 1000;
/** How old a loaded cache's mtime may be before the run marks it used again (one write a day at most). */
const MARK_USED_AFTER_MS = DAY_MS;

/** A cache of the CLI's script, as script-cache.ts names it; the build's ids are 16 hex digits. */
const CACHE = /^websites-sync-([0-9a-f]{16})-(?:sync|validate|other)\.cache$/;
/** A cache being written, or left half-written by a save that died (`<cache>.<pid>-<random>.partial`). */
const PARTIAL = /^websites-sync-[0-9a-f]{16}-(?:sync|validate|other)\.cache\.\d+-[0-9a-z]*\.partial$/;

/**
 * Removes from `dir` the caches of builds other than `id` not used for STALE_CACHE_MS, and `.partial`
 * files (of any build) not written for STALE_PARTIAL_MS. Never throws.
 */
export function pruneCaches(dir: string, id: string, now: number = Date.now()): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const maxAge = staleAfter(name, id);
    if (maxAge === undefined) continue;
    try {
      const found = lstatSync(join(dir, name));
      if (found.isFile() && found.uid === uid && Math.abs(now - found.mtimeMs) > maxAge) {
        unlinkSync(join(dir, name));
      }
    } catch {
      // Gone meanwhile (another run pruned it, or renamed its partial), or not ours to remove.
    }
  }
}

/** How long the file `name` may go unused before it is removed, or undefined: never (not one of ours). */
function staleAfter(name: string, id: string): number | undefined {
  if (PARTIAL.test(name)) return STALE_PARTIAL_MS;
  const cacheId = CACHE.exec(name)?.[1];
  return cacheId !== undefined && cacheId !== id ? STALE_CACHE_MS : undefined;
}

/**
 * Marks the cache at `path`, just loaded and accepted, as in use (its mtime, which pruneCaches reads),
 * when its mtime (`mtimeMs`) is a day or more from now: runs between keep theirs unchanged. Never throws.
 */
export function markUsed(path: string, mtimeMs: number, now: number = Date.now()): void {
  if (Math.abs(now - mtimeMs) < MARK_USED_AFTER_MS) return;
  try {
    const time = new Date(now);
    utimesSync(path, time, time);
  } catch {
    // A read-only cache directory: it is pruned by age as if unused, and made again if it is.
  }
}
