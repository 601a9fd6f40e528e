// The manifest stage's fast path, for the common case of a valid manifest in plain YAML: the fast
// reader's data goes through the very same resolution as the full path, and zod's whole-document
// pass is replaced by checks that hold exactly when it would find nothing. Anything else (a problem,
// even a warning; YAML beyond the fast subset) returns undefined, and the full path reads the file
// again to report every problem with its position. Both paths give the same result for the same text.
import type { DesiredState, SourceLocation } from '../model/index.js';
import { readSimpleYaml } from './fast-yaml.js';
import { ALLOW_DELETE_KEY } from './guards.js';
import { type Env, interpolateData } from './interpolate.js';
import { lifecycleInvalid } from './lifecycle.js';
import type { Path } from './locate.js';
import { resolveManifest } from './resolve.js';
import { MANIFEST_KEYS, manifestSchema, SETTING_KEYS, WEBSITE_KEYS } from './schema.js';
import { SlotCache } from './settings.js';

const ROOT_KEYS = new Set(MANIFEST_KEYS);
/** Every key a manifest may use, at any level: the fast reader gives up on any other. */
const ALL_KEYS = [...new Set([...MANIFEST_KEYS, ...WEBSITE_KEYS, ...SETTING_KEYS])];
const ENTRY_KEYS = new Set(WEBSITE_KEYS);
const SETTINGS = new Set<string>(SETTING_KEYS);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when zod's pass over the root, `ignore` and `defaults` would report nothing. */
function rootValid(data: Record<string, unknown>): boolean {
  if (!Object.keys(data).every((key) => ROOT_KEYS.has(key)) || data.version !== 1) return false;
  const { shape } = manifestSchema;
  return (
    shape.prune.safeParse(data.prune).success &&
    shape.delete_delay.safeParse(data.delete_delay).success &&
    shape.traffic_window.safeParse(data.traffic_window).success &&
    shape.traffic_guard.safeParse(data.traffic_guard).success &&
    shape.ignore.safeParse(data.ignore).success &&
    shape.defaults.safeParse(data.defaults).success
  );
}

/** True when every entry has only known keys and valid settings (domains are checked by resolution). */
function entriesValid(entries: unknown[], cache: SlotCache): boolean {
  for (const entry of entries) {
    // An entry asking for a delete (`allow_delete_with_traffic`) is rare: the full path checks it.
    if (!isRecord(entry) || lifecycleInvalid(entry) || ALLOW_DELETE_KEY in entry) return false;
    for (const key in entry) {
      if (!ENTRY_KEYS.has(key)) return false;
      if (SETTINGS.has(key) && cache.read(key as (typeof SETTING_KEYS)[number], entry[key]).kind !== 'ok') {
        return false;
      }
    }
  }
  return true;
}

export function parseManifestFast(text: string, file: string, env: Env): DesiredState | undefined {
  // Where each `domain:` value is, in reading order: for a valid manifest, entry i's is the i-th.
  const domainMaps: object[] = [];
  const domainLocations: SourceLocation[] = [];
  const data = readSimpleYaml(text, ALL_KEYS, (map, key, line, column) => {
    if (key !== 'domain') return;
    domainMaps.push(map);
    domainLocations.push({ file, line, column });
  });
  if (data === undefined || !interpolateData(data, env) || !rootValid(data)) return undefined;
  const entries = data.websites ?? [];
  const cache = new SlotCache();
  if (!Array.isArray(entries) || !entriesValid(entries, cache)) return undefined;

  let located = true;
  const locate = (path: Path): SourceLocation => {
    const index = path.length === 3 && path[0] === 'websites' && path[2] === 'domain' ? path[1] : undefined;
    if (typeof index === 'number' && domainMaps[index] === entries[index]) return domainLocations[index]!;
    located = false;
    return { file, line: 1, column: 1 };
  };
  const { findings, ...state } = resolveManifest(data, locate, cache);
  // Resolution drops a website whose domain or settings are invalid, without a finding of its own.
  if (findings.length > 0 || !located || state.websites.length !== entries.length) return undefined;
  return { file, ...state };
}
