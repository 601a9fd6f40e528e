import type { Logger } from 'pino';
import { type ConditionSink, sayCondition } from '../model/index.js';
import { type PlanSummary, refusalText, summarise, toJsonPlan } from '../plan/index.js';
import { classifyRun, type ReconcileResult, summariseOutcome } from '../reconcile/index.js';
import type { RunReport } from './types.js';
import { planWarning, type Warning } from './warning-log.js';

// What each run says in the log: its result line, and what its plan held back (observed drift, pending
// deletes, protected websites), which the metrics count too.

export function heldBackOf({ observed, pending_delete, protected: kept, traffic_refused }: PlanSummary) {
  return { observed, pending_delete, protected: kept, traffic_refused };
}

/**
 * The deletes a guard refused in a run, by guard: a refused plan with no traffic refusal was refused
 * whole (the mass-delete guard, or a state it could not use), before any traffic was read.
 */
export function refusedDeletesOf(result: string, summary: PlanSummary) {
  const wholePlan = result === 'refused' && summary.traffic_refused === 0;
  return { traffic: summary.traffic_refused, mass_delete: wholePlan ? summary.delete : 0 };
}

/**
 * A bad merge under delete_delay, or drift on an observed website, is a warning. Every resync meets it
 * again: it is said once while the same websites stand so (`conditions`), again when they change, and
 * the websites_sync_websites_held_back gauge shows it meanwhile.
 */
export function warnHeldBack({ plan }: ReconcileResult, logger: Logger, conditions: ConditionSink): void {
  const warn = heldBackWarning(logger, conditions);
  if (plan.pendingDeletes.length > 0) {
    const pending = plan.pendingDeletes.map(({ domain, id, since, due }) => ({ domain, id, since, due }));
    warn('pending', pending, `${pending.length} delete(s) pending (delete_delay)`);
  }
  if (plan.observed.length > 0) {
    const drifted = plan.observed.map((change) => change.domain);
    warn('drifted', drifted, `${drifted.length} observed website(s) drifted (not applied)`, {
      ended: 'observed websites: no drift any more',
    });
  }
  warnGuarded(plan, warn);
}

type HeldBackWarning = (
  field: string,
  names: unknown[],
  message: string,
  more?: { ended?: string; identity?: unknown[] },
) => void;

/**
 * Its identity: what it names (`identity`, else the names as shown), so that a change is said again
 * but a count that moves at every resync (a refused delete's visitors) is not one.
 */
function heldBackWarning(logger: Logger, conditions: ConditionSink): HeldBackWarning {
  return (field, names, message, { ended, identity = names } = {}) =>
    sayCondition(conditions, logger, {
      key: `plan:${field}:${JSON.stringify(identity)}`,
      level: 'warn',
      fields: { stage: 'plan', [field]: names },
      message,
      ...(ended === undefined ? {} : { ended }),
    });
}

/**
 * What the service's guards held back or could not check (issue 20), by name, as a dry run prints it:
 * deletes refused by the traffic guard, deletes whose traffic is unknown (lenient: not blocked), and
 * creates beyond the account's plan limit.
 */
function warnGuarded(plan: ReconcileResult['plan'], warn: HeldBackWarning): void {
  if (plan.trafficRefused.length > 0) {
    const refused = plan.trafficRefused.map((refusal) => refusalText(refusal, plan.trafficWindowDays ?? 0));
    warn('refused', refused, `${refused.length} delete(s) refused by the traffic guard`, {
      ended: 'traffic guard: no delete refused any more',
      identity: plan.trafficRefused.map((refusal) => refusal.domain),
    });
  }
  const unknown = plan.changes.flatMap((c) =>
    c.kind === 'delete' && c.traffic?.kind === 'unknown' ? [c.domain] : [],
  );
  if (unknown.length > 0) {
    warn(
      'unknown',
      unknown,
      `${unknown.length} delete(s) whose traffic could not be read, not blocked by the traffic guard`,
    );
  }
  const unfit = plan.changes.flatMap((c) => (c.kind === 'create' && c.unfit ? [c.domain] : []));
  if (unfit.length > 0) {
    warn('unfit', unfit, `${unfit.length} create(s) beyond the account's plan limit, not sent`, {
      ended: 'plan limit: no create held back any more',
    });
  }
}

export function suffix(reason: string | undefined): string {
  return reason ? `: ${reason}` : '';
}

/** What the run's line says (the daemon's RunReport). */
interface RunLine {
  triggers: readonly string[];
  result: string;
  summary?: PlanSummary;
  outcomes: ReadonlyArray<{ result: string }>;
  durationMs: number;
  reason?: string;
}

/** One line per run: its result, the plan's counts, failures and duration; the level follows the result. */
export function logRun(report: RunLine, logger: Logger): void {
  const fields = {
    stage: 'daemon',
    triggers: report.triggers,
    result: report.result,
    ...report.summary,
    failed: report.outcomes.filter((o) => o.result === 'failed').length,
    durationMs: report.durationMs,
  };
  const message = `run ${report.result}${suffix(report.reason)}`;
  if (report.result === 'success') logger.info(fields, message);
  else if (report.result === 'failure') logger.error(fields, message);
  else logger.warn(fields, message);
}

/** How a run that planned ended, and what it logs: the plan in observe mode, what it held back, warnings. */
export function endOfRun(
  result: ReconcileResult,
  run: { dryRun: boolean; logger: Logger; conditions: ConditionSink; tell: (warnings: Warning[]) => void },
): Omit<RunReport, 'run' | 'triggers' | 'durationMs'> {
  const { dryRun, logger } = run;
  const summary = summarise(result.plan);
  if (dryRun) {
    logger.info({ stage: 'plan', plan: toJsonPlan(result.plan) }, 'observe mode: the plan was not applied');
  }
  warnHeldBack(result, logger, run.conditions);
  // What a dry run prints, the daemon logs: every warning of the plan, once while it stands.
  run.tell(result.plan.warnings.map(planWarning));
  const { result: label, reason } = summariseOutcome(classifyRun(result, { dryRun }));
  const outcomes = result.applied?.outcomes ?? [];
  return reason === undefined
    ? { result: label, summary, outcomes }
    : { result: label, summary, outcomes, reason };
}
