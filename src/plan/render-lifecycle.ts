import { guardSummaryParts } from './render-guards.js';
import type { PendingDelete, Plan } from './types.js';

// The words every format uses for what the tool holds back: drift it only observes, deletes that
// wait for delete_delay, websites that protection keeps. One wording, so the formats never disagree.

export const KEPT_PROTECTED = 'kept: protected; to allow deleting it, apply `protect: false` for it first';
export const OBSERVED_NOTE = 'observed (observe: true): drift shown, never applied';

/** "2026-11-24 10:00 UTC": minutes are enough for a delay counted in hours. */
export function formatUtc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function pendingText(pending: PendingDelete): string {
  return `will be deleted after ${formatUtc(pending.due)}, missing from the manifest since ${formatUtc(pending.since)}`;
}

/** What the summary line adds when something was held back; empty otherwise. */
export function heldBackSummary(plan: Plan): string {
  const parts: string[] = [];
  if (plan.observed.length > 0) parts.push(`${plan.observed.length} observed with drift (not applied)`);
  if (plan.pendingDeletes.length > 0)
    parts.push(`${plan.pendingDeletes.length} delete(s) pending (delete_delay)`);
  if (plan.protected.length > 0) parts.push(`${plan.protected.length} kept (protected)`);
  parts.push(...guardSummaryParts(plan));
  return parts.length > 0 ? ` Held back: ${parts.join(', ')}.` : '';
}

/** `--adopt`: what the plan says of the websites whose write-only fields it records without sending. */
export function adoptedNote(plan: Plan): string | undefined {
  if (plan.adopted.length === 0) return undefined;
  const domains = plan.adopted.map((a) => a.domain);
  const shown = domains.slice(0, 5).join(', ');
  const more = domains.length > 5 ? `, … (+${domains.length - 5})` : '';
  // Said of the plan, not of a result: a dry run adopts nothing.
  return `Adopts ${plan.adopted.length} website(s) when applied: exclude_params and passwords are assumed to match the manifest (recorded, not sent): ${shown}${more}`;
}

/**
 * Write-only fields left as the service holds them (not declared, never sent): said once per plan, in
 * every format, so a reader knows they were neither compared nor wiped.
 */
export function keptWriteOnlyNote(plan: Plan): string | undefined {
  const kept = Object.entries(plan.keptWriteOnly ?? {});
  if (kept.length === 0) return undefined;
  const fields = kept.map(([field, count]) => `${field} on ${count} website(s)`).join(', ');
  return `Not declared and never sent by websites-sync, so left as the service holds them (it does not show them): ${fields}; declare a value in the manifest to set it`;
}
