// What a run is worth telling someone about, as webhook events. Built from the run's outcome and plan
// only (never from a secret), in one place for --once and the daemon.
import { oneLine } from '../model/index.js';
import { type Change, dueDeletes, isResendOnly, type Plan } from '../plan/index.js';
import { trafficEvents } from './guard-events.js';

export type NotifyKind =
  | 'drift_corrected'
  | 'drift_observed'
  | 'operation_failed'
  | 'refused'
  | 'traffic_refused'
  | 'traffic_unknown'
  | 'delete_scheduled'
  | 'delete_due'
  | 'manifest_invalid'
  | 'manifest_valid'
  | 'run_failed'
  | 'run_recovered'
  | 'warnings';

/** The kinds a run's events are made of (`eventsOfRun`); the manifest's validity is told apart. */
export const RUN_KINDS: readonly NotifyKind[] = [
  'drift_corrected',
  'drift_observed',
  'operation_failed',
  'refused',
  'traffic_refused',
  'traffic_unknown',
  'delete_scheduled',
  'delete_due',
  'warnings',
];

export interface NotifyEvent {
  event: NotifyKind;
  /** One line a Slack-compatible incoming webhook shows as the message (with the action, if any). */
  text: string;
  /** The domains the event is about, always domains (what was done to them is in `text`). */
  websites: string[];
  /**
   * What else tells this event from an earlier one of its kind (the values that drifted): compared
   * when deduplicating, never sent.
   */
  details?: string;
  /**
   * When set, all that tells this event from an earlier one of its kind, instead of the whole event
   * (never sent): a situation that lasts is told once though a number in its text moves every run.
   */
  identity?: string;
  /** `warnings` events: every warning the plan carries (the manifest's among them), as a dry run prints them. */
  warnings?: string[];
}

/** What an event is about: the notifier remembers the last event sent per topic. */
export function topicOf(kind: NotifyKind): string {
  if (kind === 'manifest_valid' || kind === 'manifest_invalid') return 'manifest';
  return kind === 'run_failed' || kind === 'run_recovered' ? 'run' : kind;
}

export interface RunFacts {
  plan: Plan;
  /** Domains whose operation failed or was not attempted. */
  failed: string[];
  /** The changes of the plan that were applied and succeeded (none in a dry run or a refused run). */
  succeeded: Change[];
  /** Why the mass-delete guard refused the run. */
  refused?: string;
  /** Why the run stopped part-way, when the service refused the key (rotated or revoked). */
  stopped?: string;
  /** A periodic resync (the daemon's interval): changes it applies are drift corrected. */
  resync: boolean;
  /** A dry run: it applied nothing and started no clock, so it tells only what it found. */
  dryRun: boolean;
}

/**
 * A run's events. A dry run did nothing a real run tells (no operation, no delete scheduled or due, no
 * refusal: those are its plan and exit status), so of a dry run only the observed drift and the plan's
 * warnings are told.
 */
export function eventsOfRun(facts: RunFacts): NotifyEvent[] {
  const { plan } = facts;
  if (facts.dryRun) return [...driftObserved(plan.observed), ...warningEvents(plan)];
  const events: NotifyEvent[] = [];
  if (facts.refused) {
    events.push({
      event: 'refused',
      text: `websites-sync refused the run: ${facts.refused}`,
      // The websites of the plan, none of which was changed; what each would have had done is compared.
      websites: plan.changes.map((c) => c.domain),
      details: actionsOf(plan.changes),
    });
  }
  if (facts.failed.length > 0) {
    events.push({
      event: 'operation_failed',
      text: `websites-sync: ${facts.failed.length} operation(s) failed: ${facts.failed.join(', ')}${facts.stopped ? `. ${facts.stopped}` : ''}`,
      websites: facts.failed,
    });
  }
  if (facts.resync) events.push(...driftCorrected(facts.succeeded, plan));
  events.push(...driftObserved(plan.observed), ...deleteEvents(facts), ...trafficEvents(plan));
  events.push(...warningEvents(plan));
  return events;
}

/**
 * The plan's warnings (an ignore pattern that matches nothing, the manifest's own): what a dry run
 * prints, told to an unattended run's webhook too. One event for all of them, so the notifier tells it
 * once while the same warnings stand, again when they change, and again when they come back after a
 * run without any.
 */
function warningEvents(plan: Plan): NotifyEvent[] {
  const { warnings } = plan;
  if (warnings.length === 0) return [];
  const head = warnings.length === 1 ? '1 warning' : `${warnings.length} warnings`;
  const text = `websites-sync: ${head} in the plan:\n${warnings.map((w) => `- ${oneLine(w)}`).join('\n')}`;
  return [{ event: 'warnings', text, websites: [], warnings: [...warnings] }];
}

/**
 * Drift a resync corrected: only the operations that succeeded; not the updates that only resent
 * write-only fields the service does not return (nothing was known to differ), nor the deletes that
 * `delete_delay` held back until now (those are `delete_due`, told apart).
 */
function driftCorrected(succeeded: readonly Change[], plan: Plan): NotifyEvent[] {
  const due = new Set(dueDeletes(plan).map((c) => c.id));
  const drifted = succeeded.filter((c) => !isResendOnly(c) && !(c.kind === 'delete' && due.has(c.id)));
  if (drifted.length === 0) return [];
  return [
    {
      event: 'drift_corrected',
      text: `websites-sync corrected drift on ${drifted.length} website(s): ${actionsOf(drifted)}`,
      websites: drifted.map((c) => c.domain),
      details: detailsOf(drifted),
    },
  ];
}

/** `update a.example.com, delete b.example.com`: what was (or was not) done, for an event's text. */
function actionsOf(changes: readonly Change[]): string {
  return changes.map((c) => `${c.kind} ${oneLine(c.domain)}`).join(', ');
}

/** Drift of `observe: true` websites: shown in plans and told, never applied. */
function driftObserved(observed: readonly Change[]): NotifyEvent[] {
  if (observed.length === 0) return [];
  const drifted = observed.map((c) =>
    c.kind === 'create'
      ? `${oneLine(c.domain)} (missing from the account)`
      : `${oneLine(c.domain)} (${c.fields.map((f) => f.field).join(', ')})`,
  );
  return [
    {
      event: 'drift_observed',
      text: `websites-sync: ${observed.length} observed website(s) drifted (not applied, observe: true): ${drifted.join(', ')}`,
      websites: observed.map((c) => c.domain),
      details: detailsOf(observed),
    },
  ];
}

function deleteEvents(facts: RunFacts): NotifyEvent[] {
  const { plan } = facts;
  const events: NotifyEvent[] = [];
  if (plan.pendingDeletes.length > 0) {
    const pending = plan.pendingDeletes.map((p) => `${oneLine(p.domain)} (after ${p.due})`);
    events.push({
      event: 'delete_scheduled',
      text: `websites-sync will delete ${pending.length} website(s) missing from the manifest: ${pending.join(', ')}`,
      websites: plan.pendingDeletes.map((p) => p.domain),
    });
  }
  const due = dueDeletes(plan).map((c) => c.domain);
  if (due.length > 0 && !facts.refused) {
    events.push({
      event: 'delete_due',
      text: `websites-sync: deletes now due: ${due.join(', ')}`,
      websites: due,
    });
  }
  return events;
}

/** The fields of the changes as plans show them (never a secret): a new value is a new event. */
function detailsOf(changes: readonly Change[]): string {
  return JSON.stringify(changes.map((c) => [c.kind, c.domain, c.fields]));
}

export function manifestEvent(valid: boolean, detail: string): NotifyEvent {
  return valid
    ? { event: 'manifest_valid', text: 'websites-sync: the manifest is valid again', websites: [] }
    : { event: 'manifest_invalid', text: `websites-sync: the manifest is invalid: ${detail}`, websites: [] };
}

/**
 * A daemon's run that ended without a plan (the service unreachable, the key refused, an answer that
 * cannot be read), and the first run after that completes again: told once each while it stands.
 */
export function runEvent(failure: string | undefined): NotifyEvent {
  return failure === undefined
    ? { event: 'run_recovered', text: 'websites-sync: runs complete again', websites: [] }
    : { event: 'run_failed', text: `websites-sync: the run failed: ${failure}`, websites: [] };
}
