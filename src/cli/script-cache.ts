// The CLI's code (dist/cli/cli.cjs, one script) runs from a code cache of its own, made after a run.
// Node's compile cache is made when a module is compiled, before it runs: it holds a module's top-level
// code and none of the functions it calls later, so every run compiled again the functions of undici,
// zod, pino and the tool that it used (the largest part of a one-shot run's start-up). V8 makes a
// script's cache whenever asked, holding every function compiled so far: made at the end of a run, it
// holds what such a run needs, and the next one runs it without compiling (a one-website dry run starts
// about a fifth faster). It lives in the directory Node's compile cache was given (compile-cache.ts:
// the user's own, or NODE_COMPILE_CACHE), in its subdirectory for this Node version, V8 options and CPU,
// and it is off when that cache is (NODE_DISABLE_COMPILE_CACHE, or no safe directory).
import { closeSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, getCompileCacheDir } from 'node:module';
import { dirname, join } from 'node:path';
import { constants, Script } from 'node:vm';
import { markUsed, pruneCaches } from './script-cache-prune.js';

/**
 * Which cache a run makes: a run of the service that got as far as a plan (`sync`: `--once`, the
 * daemon, a dry run), which most runs are; a `validate` that found its manifest valid (`validate`:
 * it compiled the whole of reading and checking one); or anything else (`--version`, a run that
 * stopped at an invalid manifest). A run loads the first of them that exists, in that order (each
 * compiled more than the next), and replaces it with its own when it is of a kind after its own: so
 * the first command on a machine does not decide for every later run (a `--version` first made the
 * cache every `validate` loaded, and each compiled its manifest's checks again).
 */
export type CacheKind = 'sync' | 'validate' | 'other';
const KINDS: readonly CacheKind[] = ['sync', 'validate', 'other'];

/** A script loaded by `loadScript`: what it exports, and how to save its cache once it has run. */
export interface LoadedScript {
  exports: Record<string, unknown>;
  /**
   * Saves the cache of what has run, as `kind`, unless the cache it was loaded from already serves that
   * kind (is of `kind`, or of one before it in KINDS). `beforeSaving` puts back V8's default options first: V8 refuses a cache made under other
   * options, and a fresh process starts with the defaults. Never throws: the cache is an optimisation.
   */
  save(kind: CacheKind, beforeSaving?: () => void): void;
}

/**
 * Runs `file`, a CommonJS script, as Node runs a CommonJS module (its `require` resolves beside it),
 * from its cache when one made for this very script (`id`: a hash of its bytes, which V8 does not
 * check) is accepted by V8. A script that does not end with the line of `id` is of another build than
 * the loader (an install replaced while the run starts, a build stopped between the two files): it runs
 * without a cache, and makes none, or the cache named for one script would hold the other's code.
 */
export function loadScript(file: string, id: string): LoadedScript {
  const source = readFileSync(file, 'utf8');
  const dir = source.endsWith(scriptIdLine(id)) ? getCompileCacheDir() : undefined;
  const cacheFile = (kind: CacheKind) => (dir ? join(dir, `websites-sync-${id}-${kind}.cache`) : undefined);
  let loaded: CacheKind | undefined;
  let script: Script | undefined;
  for (const kind of KINDS) {
    const path = cacheFile(kind);
    const cached = readCache(path);
    if (!path || !cached) continue;
    script = compile(source, file, cached.data);
    if (!script.cachedDataRejected) {
      loaded = kind;
      markUsed(path, cached.mtimeMs);
      break;
    }
  }
  script ??= compile(source, file, undefined);
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const made = script;
  // Taken now, before the run sets any option; not when a run's cache was loaded, which nothing replaces.
  const sameOptions = dir && loaded !== 'sync' ? startingOptions() : () => false;
  return {
    exports: module.exports,
    save(kind, beforeSaving) {
      const path = cacheFile(kind);
      if (!path || (loaded !== undefined && KINDS.indexOf(loaded) <= KINDS.indexOf(kind))) return;
      try {
        beforeSaving?.();
        // A cache made under other V8 options than a run starts with is refused by every run, which
        // then makes it again: an option the run sets given to Node itself, or a default it does not know.
        if (!sameOptions()) return;
        // What no run will use goes first (script-cache-prune.ts): on a disk full of old caches the
        // write below would fail, and then nothing was ever removed.
        pruneCaches(dirname(path), id);
        // Written whole under another name, then renamed: a run starting meanwhile reads the old file
        // or the new one, never half of one. The name is new (`wx`: made here, never a file or link
        // already there): processes sharing the directory may have the same pid (containers sharing a
        // volume), and one writing into the other's file would leave a cache made of both.
        const partial = `${path}.${process.pid}-${Math.random().toString(36).slice(2)}.partial`;
        writeFileSync(partial, made.createCachedData(), { mode: 0o600, flag: 'wx' });
        try {
          renameSync(partial, path);
        } catch {
          rmSync(partial, { force: true });
        }
      } catch {
        // A full disk or a directory gone: the next run compiles, as without a cache.
      }
    },
  };
}

/**
 * Whether V8's options are those the process started with (and so those of the next run, started the
 * same way): a cache of a tiny script, made now, is checked again later. V8 checks a cache's options and
 * the length of its script, so the second script is another of the same length (an identical one
 * would be found compiled already, and its cache never checked).
 */
function startingOptions(): () => boolean {
  const probe = new Script('void "a"').createCachedData();
  return () => !new Script('void "b"', { cachedData: probe }).cachedDataRejected;
}

/** The last line of the script whose id is `id`, as the build writes it (scripts/cli-bundle.mjs). */
function scriptIdLine(id: string): string {
  return `//# websites-sync-script=${id}\n`;
}

/** A cache's bytes, and its mtime: when it was made, or last marked used (script-cache-prune.ts). */
function readCache(path: string | undefined): { data: Buffer; mtimeMs: number } | undefined {
  if (!path) return undefined;
  try {
    const fd = openSync(path, 'r');
    try {
      return { mtimeMs: fstatSync(fd).mtimeMs, data: readFileSync(fd) };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The script wrapped as Node wraps a CommonJS module: the wrapper's first line is the script's. */
function compile(source: string, filename: string, cachedData: Buffer | undefined): Script {
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    ...(cachedData ? { cachedData } : {}),
    // The script imports nothing itself (esbuild inlines its modules); a dependency may.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}
