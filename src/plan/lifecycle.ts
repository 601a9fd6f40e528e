import type { DesiredWebsite, RemoteWebsite } from '../model/index.js';
import { isProtected, pendingSince, type StateData } from '../state/index.js';
import { destroyedSettings } from './compare.js';
import type { DeleteChange, Plan } from './types.js';

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
