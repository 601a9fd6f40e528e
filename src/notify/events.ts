// What a run is worth telling someone about, as webhook events. Built from the run's outcome and plan
// only (never from a secret), in one place for --once and the daemon.
import type { Plan } from '../plan/index.js';

export type NotifyKind =
  | 'drift_corrected'
  | 'operation_failed'
  | 'refused'
  | 'delete_scheduled'
  | 'delete_due'
  | 'manifest_invalid'
  | 'manifest_valid';

export interface NotifyEvent {
  event: NotifyKind;
  /** One line a Slack-compatible incoming webhook shows as the message. */
  text: string;
  websites: string[];
}

export interface RunFacts {
  plan: Plan;
  /** Domains whose operation failed or was not attempted. */
  failed: string[];
  /** Why the mass-delete guard refused the run. */
  refused?: string;
  /** Whether the plan was applied (not a dry run) and changed something. */
  applied: boolean;
  /** A periodic resync (the daemon's interval): changes it applies are drift corrected. */
  resync: boolean;
  /** Whether the run works under a delete delay (its deletes were scheduled before they became due). */
  delayed: boolean;
}

export function eventsOfRun(facts: RunFacts): NotifyEvent[] {
  const { plan } = facts;
  const events: NotifyEvent[] = [];
  const changed = plan.changes.map((c) => `${c.kind} ${c.domain}`);
  if (facts.refused) {
    events.push({
      event: 'refused',
      text: `websites-sync refused the run: ${facts.refused}`,
      websites: changed,
    });
  }
  if (facts.failed.length > 0) {
    events.push({
      event: 'operation_failed',
      text: `websites-sync: ${facts.failed.length} operation(s) failed: ${facts.failed.join(', ')}`,
      websites: facts.failed,
    });
  }
  if (facts.applied && facts.resync && changed.length > 0) {
    events.push({
      event: 'drift_corrected',
      text: `websites-sync corrected drift on ${changed.length} website(s): ${changed.join(', ')}`,
      websites: changed,
    });
  }
  if (plan.pendingDeletes.length > 0) {
    const pending = plan.pendingDeletes.map((p) => `${p.domain} (after ${p.due})`);
    events.push({
      event: 'delete_scheduled',
      text: `websites-sync will delete ${pending.length} website(s) missing from the manifest: ${pending.join(', ')}`,
      websites: plan.pendingDeletes.map((p) => p.domain),
    });
  }
  const due = plan.changes.filter((c) => c.kind === 'delete').map((c) => c.domain);
  if (facts.delayed && due.length > 0 && !facts.refused) {
    events.push({
      event: 'delete_due',
      text: `websites-sync: deletes now due: ${due.join(', ')}`,
      websites: due,
    });
  }
  return events;
}

export function manifestEvent(valid: boolean, detail: string): NotifyEvent {
  return valid
    ? { event: 'manifest_valid', text: 'websites-sync: the manifest is valid again', websites: [] }
    : { event: 'manifest_invalid', text: `websites-sync: the manifest is invalid: ${detail}`, websites: [] };
}
