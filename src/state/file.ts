import { randomBytes } from 'node:crypto';
import { readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { shownUrl } from '../model/index.js';
import { readLifecycleEntries } from './lifecycle.js';
import { openPrivateFile, refuseNotRegular } from './private-file.js';
import {
  byId,
  emptyState,
  fingerprintKey,
  STATE_VERSION,
  type StateData,
  type WebsiteState,
} from './state.js';

export interface LoadedState {
  state: StateData;
  /** Why the file was not used, when it was not (missing, corrupt, another service). */
  discarded?: string;
}

/**
 * Missing, corrupt or foreign state is not an error: it means "unknown", so write-only fields are
 * sent once more and the run converges from there.
 */
/** `secret` keys the fingerprints (derived from the API key; see fingerprintKey). */
export async function loadState(path: string, baseUrl: string, secret: string): Promise<LoadedState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      state: emptyState(baseUrl, secret),
      discarded: code === 'ENOENT' ? 'no state file yet' : `unreadable (${code})`,
    };
  }
  const parsed = parseState(text);
  if (!parsed)
    return { state: emptyState(baseUrl, secret), discarded: 'not a websites-sync state file (corrupt?)' };
  if (parsed.base_url !== baseUrl) {
    return {
      state: emptyState(baseUrl, secret),
      discarded: `it belongs to another service (${shownUrl(parsed.base_url)})`,
    };
  }
  return { state: { ...parsed, key: fingerprintKey(secret, parsed.salt) } };
}

function parseState(text: string): Omit<StateData, 'key'> | undefined {
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
    const { protected: _p, pending_deletes: _d, key: _k, websites, ...rest } = data as StateData;
    return {
      ...rest,
      websites: readWebsiteEntries(websites),
      ...readLifecycleEntries(data as Record<string, unknown>),
    };
  } catch {
    return undefined;
  }
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
  // The rename would replace a device, a FIFO or a socket there with a regular file.
  await refuseNotRegular(path, (problem) => `cannot save the state: ${path} ${problem}`);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await openPrivateFile(temp, 'w');
  try {
    const { key: _, ...stored } = state;
    await handle.writeFile(`${JSON.stringify(stored, null, 2)}\n`);
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
