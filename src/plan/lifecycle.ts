import type { DesiredWebsite, RemoteWebsite } from '../model/index.js';
import { isProtected, type MissingState, pendingSince, type StateData } from '../state/index.js';
import { destroyedSettings, type FieldVerdict } from './compare.js';
import { type DeleteChange, type Plan, SENSITIVE, type UpdateChange } from './types.js';

// Where a website that prune would delete goes: kept (protected), held back (delete_delay), or
// deleted now; and what the state must remember about protection. Pure: the clock comes in as `now`.

export interface DeleteRules {
  state: StateData;
  /** Milliseconds since the epoch; only read when there is a delay. */
  now: number;
  deleteDelayMs: number;
}

/** A listed website found on the account: its declared `protect` is remembered, or lifted. */
export function rememberProtection(website: DesiredWebsite, remote: RemoteWebsite, plan: Plan): void {
  if (website.protect === true) plan.remember.protect.push({ id: remote.id, domain: remote.domain });
  else if (website.protect === false) plan.remember.unprotect.push(remote.id);
}

export function planPrune(record: RemoteWebsite, rules: DeleteRules, plan: Plan): void {
  if (isProtected(rules.state, record.id)) {
    plan.protected.push(record.domain);
    return;
  }
  const change: DeleteChange = {
    kind: 'delete',
    id: record.id,
    domain: record.domain,
    fields: destroyedSettings(record),
    risks: ['delete'],
  };
  if (rules.deleteDelayMs <= 0) {
    plan.changes.push(change);
    return;
  }
  const since = pendingSince(rules.state, record.id) ?? new Date(rules.now).toISOString();
  plan.remember.deleting.push({ id: record.id, domain: record.domain, since });
  const due = Date.parse(since) + rules.deleteDelayMs;
  if (rules.now >= due) plan.changes.push(change);
  else
    plan.pendingDeletes.push({
      id: record.id,
      domain: record.domain,
      since,
      due: new Date(due).toISOString(),
    });
}

/**
 * `observe: true`: nothing is ever sent, so only what is known to differ is drift. A write-only field
 * that the service does not return and no run recorded cannot be compared, so it is left out (an
 * observed website is never written, so such a field would otherwise show as drift forever); and a
 * password is drift only when it is known to differ, not because it would travel beside a privacy
 * change. Undefined when nothing is left.
 */
export function observedDrift(change: UpdateChange, password: FieldVerdict): UpdateChange | undefined {
  const passwordDrifted = password.differs && !password.unknown;
  const fields = change.fields.filter(
    (f) => !f.unknown && (f.field !== 'password' || f.to !== SENSITIVE || passwordDrifted),
  );
  if (fields.length === 0) return undefined;
  if (fields.length === change.fields.length) return change;
  const kept = new Set<string>(fields.map((f) => f.field));
  const send = Object.fromEntries(Object.entries(change.send).filter(([field]) => kept.has(field)));
  return { ...change, send, fields };
}

/**
 * The deletes of the plan that `delete_delay` held back and that are now due (their clock ran out), as
 * opposed to deletes sent at once: the one answer for every caller, from the plan alone (a delay from
 * the manifest or from `--delete-delay` alike), since every delete a delay applies to has its clock.
 */
export function dueDeletes(plan: Plan): DeleteChange[] {
  const clocked = new Set(plan.remember.deleting.map((pending) => pending.id));
  return plan.changes.filter((c): c is DeleteChange => c.kind === 'delete' && clocked.has(c.id));
}

/** Said in the plan of a run that has no state and would delete (or start a delete's clock). */
export function noStateWarning(missing: MissingState): string {
  return `no ${missing.where}: protections recorded by earlier runs are unknown (${missing.hint})`;
}

/**
 * A run without its state file knows no protection recorded by earlier runs (websites no longer listed
 * with protect: true): a delete it plans may be of one of them, so the plan says so.
 */
export function warnNoState(plan: Plan, missing: MissingState | undefined): void {
  if (missing === undefined) return;
  if (plan.pendingDeletes.length === 0 && !plan.changes.some((change) => change.kind === 'delete')) return;
  plan.warnings.unshift(noStateWarning(missing));
}
