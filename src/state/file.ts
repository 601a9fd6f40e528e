import { randomBytes } from 'node:crypto';
import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { shownUrl } from '../model/index.js';
import { type HeldLifecycle, inspectHeld } from './discarded.js';
import { STATE_FILE } from './file-limits.js';
import { readLifecycleEntries } from './lifecycle.js';
import { StateLockError } from './lock-error.js';
import {
  openPrivateFile,
  readChecked,
  readRegularText,
  refuseNotRegular,
  whereItLands,
} from './private-file.js';
import {
  byId,
  emptyState,
  fingerprintKey,
  STATE_VERSION,
  type StateData,
  storedPart,
  type WebsiteState,
} from './state.js';

export interface LoadedState {
  state: StateData;
  /** Why the file was not used, or not all of it (missing, corrupt, another service, bad entries). */
  discarded?: string;
  /**
   * The file exists and the tool cannot use it, or not all of it: it must not be overwritten (keepAside
   * before the first save). `held` is what it holds, when it could be read at all.
   */
  unusable?: { reason: string; held?: HeldLifecycle; partial?: boolean };
  /** There is no file at the path: a first run, or a run that looks in the wrong place. */
  missing?: true;
}

/**
 * Missing, corrupt or foreign state is not an error: it means "unknown", so write-only fields are
 * sent once more and the run converges from there. An unusable file is reported as such (`unusable`),
 * since it may hold protections the run cannot honour.
 */
/** `secret` keys the fingerprints (derived from the API key; see fingerprintKey). */
export async function loadState(path: string, baseUrl: string, secret: string): Promise<LoadedState> {
  let text: string;
  try {
    text = await readChecked(path, STATE_FILE);
  } catch (error) {
    if (error instanceof StateLockError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return { state: emptyState(baseUrl, secret), discarded: 'no state file yet', missing: true };
    }
    return unusable(emptyState(baseUrl, secret), `it cannot be read (${code})`);
  }
  const parsed = parseState(text);
  // What an unusable file holds is read (leniently, a second parse) only when it is unusable: a
  // usable state of 100,000 websites is parsed once.
  if (!parsed) {
    const held = inspectHeld(text);
    return unusable(emptyState(baseUrl, secret), invalidReason(held), held);
  }
  if (!sameBaseUrl(parsed.data.base_url, baseUrl)) {
    const reason = `it was written for ${shownUrl(parsed.data.base_url)}, not for this run's base URL ${shownUrl(baseUrl)}`;
    return unusable(emptyState(baseUrl, secret), reason, inspectHeld(text));
  }
  const state = { ...parsed.data, key: fingerprintKey(secret, parsed.data.salt) };
  if (parsed.dropped.length === 0) return { state };
  const reason = `some of its entries cannot be read (${parsed.dropped.join(', ')})`;
  return { state, discarded: reason, unusable: { reason, held: inspectHeld(text), partial: true } };
}

function unusable(state: StateData, reason: string, held?: HeldLifecycle): LoadedState {
  return { state, discarded: reason, unusable: held ? { reason, held } : { reason } };
}

function invalidReason(held: HeldLifecycle): string {
  if (held.version !== undefined && held.version !== STATE_VERSION) {
    return `it is version ${JSON.stringify(held.version)} of the state format, and this websites-sync reads version ${STATE_VERSION}`;
  }
  return 'it is not a websites-sync state file (corrupt?)';
}

/**
 * Two spellings of one service's URL (a trailing slash, the host's case, a default port) are the same
 * service. Different hosts (`localhost`, `127.0.0.1`) are not: nothing says they reach the same one.
 */
export function sameBaseUrl(a: string, b: string): boolean {
  return canonicalBaseUrl(a) === canonicalBaseUrl(b);
}

/** The one spelling of a base URL, by which a shared state keys its accounts (as sameBaseUrl compares). */
export function canonicalBaseUrl(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}

/**
 * The state a file holds, whatever account it is for, and what of it could not be read; undefined when
 * there is none it can read.
 */
export async function readStoredState(path: string): Promise<ParsedState | undefined> {
  // A refusal (another user's file, StateLockError) is said as such, not as a state it cannot read.
  const text = await readRegularText(path, STATE_FILE);
  return text === undefined ? undefined : parseState(text);
}

export interface ParsedState {
  data: Omit<StateData, 'key' | 'previousKeys'>;
  /** What was dropped because it could not be read ("1 protection"). */
  dropped: string[];
}

function parseState(text: string): ParsedState | undefined {
  try {
    const data = JSON.parse(text) as Partial<StateData>;
    const valid =
      data.version === STATE_VERSION &&
      typeof data.base_url === 'string' &&
      typeof data.salt === 'string' &&
      data.salt.length >= 16 &&
      typeof data.websites === 'object' &&
      data.websites !== null;
    if (!valid) return undefined;
    // The HMAC keys are never taken from the file (one planted there would make a changed value look
    // recorded): they are derived from the API keys the run is given.
    const {
      protected: _p,
      pending_deletes: _d,
      key: _k,
      previousKeys: _pk,
      websites,
      ...rest
    } = data as StateData;
    const parsed = {
      ...rest,
      websites: readWebsiteEntries(websites),
      ...readLifecycleEntries(data as Record<string, unknown>),
    };
    return { data: parsed, dropped: droppedEntries(data as Record<string, unknown>, parsed) };
  } catch {
    return undefined;
  }
}

function droppedEntries(raw: Record<string, unknown>, kept: Omit<StateData, 'key'>): string[] {
  const count = (value: unknown): number => (isRecord(value) ? Object.keys(value).length : 0);
  const present = (value: unknown): number => (value === undefined || isRecord(value) ? 0 : 1);
  const dropped: Array<[number, string]> = [
    [count(raw.protected) - count(kept.protected) + present(raw.protected), 'protection'],
    [
      count(raw.pending_deletes) - count(kept.pending_deletes) + present(raw.pending_deletes),
      'pending delete',
    ],
    [count(raw.websites) - count(kept.websites), "website's fingerprints"],
  ];
  return dropped.filter(([n]) => n > 0).map(([n, what]) => `${what}: ${n} entr${n > 1 ? 'ies' : 'y'}`);
}

/**
 * Entry by entry: a malformed entry (hand-edited, half-written by another tool) is "unknown" for that
 * website alone, so its write-only fields are resent once; it never stops the run.
 */
function readWebsiteEntries(websites: Record<string, unknown>): Record<string, WebsiteState> {
  const valid = byId<WebsiteState>();
  for (const [id, entry] of Object.entries(websites)) {
    if (isWebsiteState(entry)) valid[id] = entry;
  }
  return valid;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isWebsiteState(entry: unknown): entry is WebsiteState {
  if (!isRecord(entry) || typeof entry.domain !== 'string' || !isRecord(entry.fingerprints)) return false;
  if (!Object.values(entry.fingerprints).every((value) => typeof value === 'string')) return false;
  if (entry.normalised === undefined) return true;
  return (
    isRecord(entry.normalised) &&
    Object.values(entry.normalised).every(
      (value) => isRecord(value) && typeof value.sent === 'string' && typeof value.shown === 'string',
    )
  );
}

/** Atomic: a crash leaves either the old file or the new one, never half of one. Mode 0600. */
export async function saveState(path: string, state: StateData): Promise<void> {
  await writePrivateFileAtomically(
    path,
    `${JSON.stringify(storedPart(state), null, 2)}\n`,
    'cannot save the state',
  );
}

/**
 * Replaces the file at `givenPath` with `text` in one step (a temporary file beside it, synced, then
 * renamed over it): a crash leaves the old content or the new, never half. Mode 0600; through a
 * symlink, the file it names (a rename would replace the link itself); never over anything but a
 * regular file (the rename would replace a device, a FIFO or a socket).
 */
export async function writePrivateFileAtomically(
  givenPath: string,
  text: string,
  what: string,
): Promise<void> {
  const path = await whereItLands(givenPath);
  await refuseNotRegular(path, (problem) => `${what}: ${path} ${problem}`);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await openPrivateFile(temp, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}
