import { capacityText, unfitText } from './capacity.js';
import { deleteTrafficNote, refusalText } from './traffic-guard.js';
import type { Change, Plan } from './types.js';

// The guards' words, the same in every format: the deletes the traffic guard refused, each delete's
// traffic, the account's plan limit and the creates that do not fit.

/** "- shop.example.com: refused, 1,204 visitors in the last 30 days", one per refused delete. */
export function refusalLines(plan: Plan): string[] {
  return plan.trafficRefused.map((refusal) => refusalText(refusal, plan.trafficWindowDays ?? 0));
}

/** What stands beside a change: a delete's traffic, or why a create will not be sent. */
export function changeGuardNote(plan: Plan, change: Change): string | undefined {
  if (change.kind === 'delete') return deleteTrafficNote(change, plan.trafficWindowDays);
  if (change.kind === 'create' && change.unfit) return unfitText(plan.capacity);
  return undefined;
}

/** Notes after the plan: the plan limit's line, and the deletes going ahead with unknown traffic. */
export function guardNotes(plan: Plan): string[] {
  const notes: string[] = [];
  const unknown = plan.changes.filter((c) => c.kind === 'delete' && c.traffic?.kind === 'unknown');
  // One let through by allow_delete_with_traffic or --force goes ahead under strict too: said so.
  const lenient = unknown.filter((c) => c.kind === 'delete' && c.traffic?.allowedBy === undefined);
  const allowed = unknown.filter((c) => c.kind === 'delete' && c.traffic?.allowedBy !== undefined);
  const domains = (changes: Change[]) => changes.map((c) => c.domain).join(', ');
  if (lenient.length > 0) {
    notes.push(
      `Note: traffic unknown for ${lenient.length} delete(s) (${domains(lenient)}): traffic_guard is lenient, so they go ahead; set traffic_guard: strict to refuse them`,
    );
  }
  if (allowed.length > 0) {
    notes.push(
      `Note: traffic unknown for ${allowed.length} delete(s) (${domains(allowed)}): they go ahead, let through by allow_delete_with_traffic: true or --force`,
    );
  }
  if (plan.capacity) notes.push(`Note: ${capacityText(plan.capacity)}.`);
  return notes;
}

/** What the summary line adds for the guards. */
export function guardSummaryParts(plan: Plan): string[] {
  const parts: string[] = [];
  if (plan.trafficRefused.length > 0) {
    parts.push(`${plan.trafficRefused.length} delete(s) refused (traffic guard)`);
  }
  const unfit = plan.capacity?.unfit ?? 0;
  if (unfit > 0) parts.push(`${unfit} create(s) beyond the account's plan limit`);
  return parts;
}
