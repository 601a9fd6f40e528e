import { chmod, constants, copyFile, link, lstat, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { STATE_FILE } from './file-limits.js';
import { plantedHere, readRegularFile, whereItLands } from './private-file.js';
import type { StateData } from './state.js';

// A state file the tool cannot use (corrupt, another base URL, another version, entries it cannot
// read) may hold protections and pending deletes: the only record that a website removed from the
// manifest must never be deleted. Such a file is never overwritten: before the run writes the state it
// is moved aside (`<state>.discarded-<time>`), and the copies kept there are read again by every run,
// so that what they protect is not deleted without --force until someone restores or removes them.

/** What a state file holds about lifecycles, read leniently (whatever else is wrong with it). */
export interface HeldLifecycle {
  /** False when the file is not JSON, or its protections cannot be read at all: anything may be protected. */
  readable: boolean;
  baseUrl?: string;
  version?: unknown;
  /** Every id under `protected`, its entry readable or not. */
  protectedIds: string[];
  /** The domains of the readable ones. */
  protectedDomains: string[];
  pendingDeletes: number;
}

/** Websites that a file this run does not use may protect: deletes of them need --force. */
export interface ProtectionDoubt {
  ids: string[];
  domains: string[];
  /** The file could not be read: any website may be protected. */
  unknown: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function inspectHeld(text: string): HeldLifecycle {
  const none: HeldLifecycle = { readable: false, protectedIds: [], protectedDomains: [], pendingDeletes: 0 };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return none;
  }
  if (!isRecord(data)) return none;
  const sites = data.protected;
  const pending = data.pending_deletes;
  const entries = isRecord(sites) ? Object.entries(sites) : [];
  return {
    readable: sites === undefined || isRecord(sites),
    ...(typeof data.base_url === 'string' ? { baseUrl: data.base_url } : {}),
    version: data.version,
    protectedIds: entries.map(([id]) => id),
    protectedDomains: entries.flatMap(([, entry]) =>
      isRecord(entry) && typeof entry.domain === 'string' ? [entry.domain] : [],
    ),
    pendingDeletes: isRecord(pending) ? Object.keys(pending).length : 0,
  };
}

/** What `held` protects that `state` (the state in force) does not. */
export function protectionsNotInForce(held: HeldLifecycle | undefined, state: StateData): ProtectionDoubt {
  if (!held?.readable) return { ids: [], domains: [], unknown: true };
  const inForce = state.protected ?? {};
  const domainsInForce = new Set(Object.values(inForce).map((entry) => entry.domain));
  return {
    ids: held.protectedIds.filter((id) => inForce[id] === undefined),
    domains: held.protectedDomains.filter((domain) => !domainsInForce.has(domain)),
    unknown: false,
  };
}

export function isDoubtful(doubt: ProtectionDoubt): boolean {
  return doubt.unknown || doubt.ids.length > 0 || doubt.domains.length > 0;
}

const KEPT = '.discarded-';

/**
 * Moves the state file aside to `<path>.discarded-<time>` (mode 0600) without ever replacing a file
 * there: a hard link (which fails rather than overwrites), or a copy made exclusively where links are
 * not supported. Returns where it went.
 */
export async function keepAside(given: string, now: Date): Promise<string> {
  // The file itself, not a symlink to it: the copy must hold what the file held.
  const path = await whereItLands(given);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  for (let attempt = 1; ; attempt += 1) {
    const target = `${path}${KEPT}${stamp}${attempt > 1 ? `-${attempt}` : ''}`;
    try {
      await link(path, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw error;
      try {
        await copyFile(path, target, constants.COPYFILE_EXCL);
      } catch (copyError) {
        if ((copyError as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw copyError;
      }
    }
    await chmod(target, 0o600).catch(() => {});
    await unlink(path);
    return target;
  }
}

/**
 * The copies kept aside beside `path` by earlier runs, with what each holds. Only regular files: the tool
 * makes nothing else, and a FIFO of that name would block the read for ever.
 */
export async function keptCopies(given: string): Promise<Array<{ path: string; held?: HeldLifecycle }>> {
  const path = await whereItLands(given);
  const prefix = `${basename(path)}${KEPT}`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  const kept = names.filter((name) => name.startsWith(prefix)).sort();
  const copies = await Promise.all(
    kept.map(async (name) => {
      const file = join(dirname(path), name);
      // Only what the tool could have made: a link of that name is not, nor another user's file in a
      // directory anyone can write (it could lead the run to read a file of the operator's, or block).
      const info = await lstat(file).catch(() => undefined);
      if (info !== undefined && (!info.isFile() || (await plantedHere(info, file)))) return undefined;
      // Opened without blocking and checked again: a FIFO put there meanwhile is not read either.
      const text = await readRegularFile(file, STATE_FILE);
      return text === undefined ? { path: file } : { path: file, held: inspectHeld(text) };
    }),
  );
  return copies.filter((copy) => copy !== undefined);
}
