import type { DesiredState, RemoteWebsite, TrafficReading } from '../model/index.js';
import { compareText, formatCount, shownUrl, websiteKey } from '../model/index.js';
import { computePlan, type Plan, trafficText } from '../plan/index.js';
import { fingerprintKey, type StateData } from '../state/index.js';
import { toOperation } from './build.js';
import { desiredHashes, passwordHmacs, recordHash } from './fingerprint.js';
import type { SavedOperation, SavedPlanFile, SavedPlanMeta } from './format.js';

// Whether a saved plan still applies. It depends on: the service it was made for and the tool that
// made it; the manifest's canonical content and the passwords it resolves to; the records its updates
// and deletes act on; the absence of the websites it creates; and, when it deletes, the set of unlisted
// websites (a new one would be deleted by a fresh plan but not by this one). Every reason is returned,
// so one refusal says everything that changed.

export interface TargetContext {
  baseUrl: string;
  version: string;
}

/** Checked before any request: a plan for another service or tool version is never even compared. */
export function targetMismatch(file: SavedPlanFile, context: TargetContext): string[] {
  const meta = file.saved_plan;
  const reasons: string[] = [];
  if (meta.base_url !== context.baseUrl) {
    reasons.push(
      `the plan was made for ${shownUrl(meta.base_url)}, not ${context.baseUrl} (the base URL differs)`,
    );
  }
  if (meta.tool_version !== context.version) {
    reasons.push(
      `the plan was made by websites-sync ${meta.tool_version}, this is ${context.version}; plan again with this version`,
    );
  }
  return reasons;
}

export interface StaleContext {
  desired: DesiredState;
  current: readonly RemoteWebsite[];
  state: StateData;
  /** Keys the password HMACs (the same secret as when the plan was saved, or they all differ). */
  secret: string;
  /** The plan computed afresh from the same manifest, listing and state (with the saved plan's prune). */
  fresh: Plan;
  /** Each delete's visitors read now, by id, and the window they cover (absent: the guard is off). */
  traffic?: { readings: ReadonlyMap<string, TrafficReading>; windowDays: number };
}

export function staleReasons(file: SavedPlanFile, context: StaleContext): string[] {
  const meta = file.saved_plan;
  const changed = [
    ...manifestReasons(meta, context.desired),
    ...passwordReasons(meta, context),
    ...recordReasons(meta, context.current),
    ...appearedReasons(meta, context),
    ...trafficReasons(meta, context.traffic),
  ];
  // The inputs explain a difference best; when none changed, the operations must still be the fresh
  // ones, but for the deletes held back while their traffic gets no answer (said apart).
  const held = new Set(unreadIds(meta, context.traffic));
  const saved = meta.operations.filter((op) => !(op.action === 'delete' && held.has(String(op.id))));
  const stale = changed.length > 0 ? changed : operationReasons(saved, context.fresh);
  // Applying this plan again helps only when nothing else is wrong with it.
  return [...stale, ...unreadReasons(meta, context.traffic, stale.length === 0)];
}

/**
 * The saved operations must be exactly those of a fresh plan: action, id, domain and every field sent.
 * Whatever else a file holds (an operation added or edited by hand), nothing is executed that the
 * manifest, the listing and the state would not produce now.
 */
function operationReasons(saved: readonly SavedOperation[], fresh: Plan): string[] {
  const key = (op: SavedOperation) => `${op.action} ${op.domain} (id ${op.id ?? 'new'})`;
  const canonical = (op: SavedOperation) => JSON.stringify(op.send === null ? null : sortKeys(op.send));
  const now = new Map(fresh.changes.map(toOperation).map((op) => [key(op), canonical(op)]));
  const then = new Map(saved.map((op) => [key(op), canonical(op)]));
  const reasons: string[] = [];
  for (const [op, send] of then) {
    if (!now.has(op)) reasons.push(`the saved plan would ${op}, which a fresh plan does not`);
    else if (now.get(op) !== send)
      reasons.push(`the saved plan would ${op} with other values than a fresh plan`);
  }
  for (const op of now.keys()) if (!then.has(op)) reasons.push(`a fresh plan would also ${op}`);
  return reasons;
}

/**
 * Deletes whose traffic got no answer now (a 503 after the retries, a timeout): the plan waits for a
 * reading, not for a new plan. When these are all the reasons, the plan still applies as saved, later.
 */
export function unreadReasons(
  meta: SavedPlanMeta,
  traffic: StaleContext['traffic'],
  advise = true,
): string[] {
  const held = new Set(unreadIds(meta, traffic));
  return meta.operations.flatMap((op) => {
    const id = String(op.id);
    const now = traffic?.readings.get(id);
    if (op.action !== 'delete' || !held.has(id) || now?.kind !== 'unknown') return [];
    return [
      `${op.domain} (id ${id}): its traffic could not be read now (${now.reason}), so it is not deleted${advise ? '; apply the plan again when the service answers' : ''}`,
    ];
  });
}

/** The ids of the saved deletes whose traffic got no answer now. */
function unreadIds(meta: SavedPlanMeta, traffic: StaleContext['traffic']): string[] {
  const saved = meta.remote.traffic;
  if (!saved || !traffic) return [];
  return meta.operations.flatMap((op) => {
    const id = String(op.id);
    const now = traffic.readings.get(id);
    const unread =
      op.action === 'delete' && saved[id] !== undefined && now?.kind === 'unknown' && now.transient;
    return unread ? [id] : [];
  });
}

/**
 * A delete whose website has visitors now though the reviewer saw none (or "unknown"): what was
 * approved is not what would be destroyed.
 */
function trafficReasons(meta: SavedPlanMeta, traffic: StaleContext['traffic']): string[] {
  const saved = meta.remote.traffic;
  if (!saved || !traffic) return [];
  return meta.operations.flatMap((op) => {
    const id = String(op.id);
    const then = saved[id];
    const now = traffic.readings.get(id);
    if (op.action !== 'delete' || then === undefined || now?.kind !== 'known') return [];
    // What the reviewer approved was a website without visitors (or of unknown traffic) going: one
    // with visitors now is another decision. One approved with its visitors (allowed despite them)
    // is the same decision with more of them.
    if (now.visitors === 0 || (then !== null && then > 0)) return [];
    const was = then === null ? 'unknown' : formatCount(then);
    return [
      `${op.domain} (id ${id}) gained traffic since the plan: ${was} then, ${trafficText(now, traffic.windowDays)} now`,
    ];
  });
}

function sortKeys(send: object): object {
  return Object.fromEntries(Object.entries(send).sort(([a], [b]) => compareText(a, b)));
}

function manifestReasons(meta: SavedPlanMeta, desired: DesiredState): string[] {
  const now = desiredHashes(desired);
  if (now.sha256 === meta.desired.sha256) return [];
  const saved = meta.desired.websites;
  const parts = [
    ...Object.keys(now.websites)
      .filter((d) => saved[d] === undefined)
      .map((d) => `${d} added`),
    ...Object.keys(saved)
      .filter((d) => now.websites[d] === undefined)
      .map((d) => `${d} removed`),
    ...Object.keys(saved)
      .filter((d) => now.websites[d] !== undefined && now.websites[d] !== saved[d])
      .map((d) => `${d} changed`),
  ];
  const what = parts.length > 0 ? parts.join(', ') : 'prune or ignore changed';
  return [`the manifest changed since the plan: ${what}`];
}

/** Only passwords both sides have: one appearing or vanishing is a manifest change, reported above. */
function passwordReasons(meta: SavedPlanMeta, { desired, secret }: StaleContext): string[] {
  const now = passwordHmacs(desired, fingerprintKey(secret, meta.salt));
  return Object.entries(meta.desired.passwords)
    .filter(([domain, hmac]) => now[domain] !== undefined && now[domain] !== hmac)
    .map(([domain]) => `the password of ${domain} in the environment differs from the planned one`);
}

function recordReasons(meta: SavedPlanMeta, current: readonly RemoteWebsite[]): string[] {
  const byId = new Map(current.map((record) => [String(record.id), record]));
  return Object.entries(meta.remote.records).flatMap(([id, saved]) => {
    const record = byId.get(id);
    if (!record) return [`remote website ${saved.domain} (id ${id}) was deleted since the plan`];
    if (recordHash(record) !== saved.sha256) {
      return [`remote website ${saved.domain} (id ${id}) changed since the plan`];
    }
    return [];
  });
}

function appearedReasons(meta: SavedPlanMeta, { desired, current, state }: StaleContext): string[] {
  const byKey = new Map(current.map((record) => [websiteKey(record.domain), record]));
  const reasons = meta.remote.absent.flatMap((domain) => {
    const record = byKey.get(domain);
    return record
      ? [`remote website ${domain} (id ${record.id}) appeared since the plan, which creates it`]
      : [];
  });
  if (meta.remote.unlisted === null) return reasons;
  // A pruning plan deletes exactly the unlisted, non-ignored websites: a fresh one says which those are now.
  const planned = new Set(meta.remote.unlisted);
  const unlisted = computePlan({ desired, current, state, prune: true }).changes.filter(
    (change) => change.kind === 'delete',
  );
  for (const change of unlisted) {
    const key = websiteKey(change.domain);
    // One the manifest listed when the plan was made is a manifest change, reported as such.
    if (planned.has(key) || meta.desired.websites[key] !== undefined) continue;
    reasons.push(
      `remote website ${change.domain} (id ${change.id}) appeared since the plan and is not in the manifest (a fresh plan would delete it too)`,
    );
  }
  return reasons;
}
