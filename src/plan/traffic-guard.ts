import type { TrafficGuardSettings, TrafficReading } from '../model/index.js';
import { formatCount, websiteKey } from '../model/index.js';
import type { Change, DeleteChange, Plan, TrafficRefusal } from './types.js';

// Deleting a website deletes its statistics, and a website that still receives visitors is almost never
// meant to go: a delete of one is refused unless `--force` or `allow_delete_with_traffic: true` on its
// entry says it is meant (so the decision is reviewed where the manifest is). The rest of the plan goes
// ahead. Traffic that cannot be read is shown; `strict` refuses it like traffic, `lenient` does not.
// Apart from the mass-delete guard (guard.ts): that one refuses a whole plan, this one single deletes.

export interface TrafficGuardInput {
  settings: TrafficGuardSettings;
  /** Visitors over the window, by `String(id)`; a delete without a reading counts as unknown. */
  traffic: ReadonlyMap<string, TrafficReading>;
  /** Domains (as `websiteKey`) whose manifest entry says `allow_delete_with_traffic: true`. */
  allowed: ReadonlySet<string>;
  force: boolean;
}

const NOT_READ: TrafficReading = { kind: 'unknown', reason: 'not read' };

/** The plan with each delete's traffic beside it, and the deletes it refuses taken out. */
export function guardTraffic(plan: Plan, input: TrafficGuardInput): Plan {
  if (input.settings.windowDays === 0) return plan;
  const changes: Change[] = [];
  const refused: TrafficRefusal[] = [];
  for (const change of plan.changes) {
    if (change.kind !== 'delete') changes.push(change);
    else {
      const checked = checkDelete(change, input);
      if ('refused' in checked) refused.push(checked.refused);
      else changes.push(checked.change);
    }
  }
  return { ...plan, changes, trafficRefused: refused, trafficWindowDays: input.settings.windowDays };
}

function checkDelete(
  change: DeleteChange,
  input: TrafficGuardInput,
): { change: DeleteChange } | { refused: TrafficRefusal } {
  const traffic = input.traffic.get(String(change.id)) ?? NOT_READ;
  // A passing failure (no answer, a 503 after the retries) is not a service that cannot tell: the
  // delete waits for a reading, under lenient too, as a dry run may have shown its visitors.
  const blocks =
    traffic.kind === 'known'
      ? traffic.visitors > 0
      : traffic.transient === true || input.settings.mode === 'strict';
  if (!blocks) return { change: { ...change, traffic } };
  if (input.force) return { change: { ...change, traffic: { ...traffic, allowedBy: '--force' } } };
  if (input.allowed.has(websiteKey(change.domain))) {
    return { change: { ...change, traffic: { ...traffic, allowedBy: 'allow_delete_with_traffic' } } };
  }
  return { refused: { id: change.id, domain: change.domain, traffic } };
}

/** "1,204 visitors in the last 30 days", "traffic unknown: the service answered 500". */
export function trafficText(traffic: TrafficReading, windowDays: number): string {
  if (traffic.kind === 'unknown') return `traffic unknown: ${traffic.reason}`;
  const visitors = formatCount(traffic.visitors);
  const days = windowDays === 1 ? 'day' : `${windowDays} days`;
  return `${visitors} visitor${traffic.visitors === 1 ? '' : 's'} in the last ${days}`;
}

/** A refused delete as every format says it: "shop.example.com: refused, 1,204 visitors in the last 30 days". */
export function refusalText(refusal: TrafficRefusal, windowDays: number): string {
  const { traffic } = refusal;
  const passing =
    traffic.kind === 'unknown' && traffic.transient
      ? ' (a passing failure: held back under any traffic_guard until it can be read; run again later)'
      : '';
  return `${refusal.domain}: refused, ${trafficText(traffic, windowDays)}${passing}`;
}

/** What stands beside a delete that goes ahead: its traffic, and what allowed it despite visitors. */
export function deleteTrafficNote(change: DeleteChange, windowDays: number | undefined): string | undefined {
  if (!change.traffic || windowDays === undefined) return undefined;
  const text = trafficText(change.traffic, windowDays);
  return change.traffic.allowedBy ? `${text}; allowed by ${change.traffic.allowedBy}` : text;
}
