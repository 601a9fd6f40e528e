// How a run ended, said once for every caller: the one-shot CLI turns it into an exit status and the
// daemon into metrics labels and readiness, so "failed" means the same thing in both (a failed or
// skipped operation, or a refused key), and a refusal by the guard is never mistaken for a failure.
import type { RunFacts } from '../notify/index.js';
import { refusalText } from '../plan/index.js';
import type { AuthError } from '../service/index.js';
import type { ExitCode } from './exit-status.js';
import type { ReconcileResult } from './reconcile.js';

export type RunOutcome =
  /** A dry run: the plan was computed and not applied (`unfit`: creates beyond the plan limit). */
  | { kind: 'planned'; changes: number; unfit: number }
  /** Every operation succeeded, or there was nothing to do. */
  | { kind: 'applied'; changes: number }
  /**
   * Some operations failed (after retries) or were not attempted, or creates were beyond the account's
   * plan limit (`unfit`, not sent); the others were applied. `refused`: the traffic guard's reason, when
   * it also refused deletes (said as well as the failures, not hidden by them).
   */
  | { kind: 'partially_applied'; failed: number; skipped: number; unfit: number; refused?: string }
  /** The mass-delete guard refused the plan: nothing was applied. */
  | { kind: 'refused'; reason: string }
  /** The traffic guard refused some deletes; the rest of the plan was applied (or, dry run, would be). */
  | { kind: 'partly_refused'; refused: number; reason: string; unfit?: number }
  /** A saved plan no longer matches what it was computed from: nothing was applied. */
  | { kind: 'stale'; reasons: string[]; unread?: boolean }
  /** The service refused the key part-way: the run stopped at once. */
  | { kind: 'failed'; reason: string; authError?: AuthError }
  /** A shutdown stopped the run before every operation was attempted. */
  | { kind: 'interrupted'; skipped: number };

/** The one classification of a run's result. */
export function classifyRun(result: ReconcileResult, options: { dryRun: boolean }): RunOutcome {
  if (result.stale)
    return { kind: 'stale', reasons: result.stale, ...(result.unread ? { unread: true } : {}) };
  if (result.refused) return { kind: 'refused', reason: result.refused };
  const { plan } = result;
  const changes = plan.changes.length;
  const unfit = plan.capacity?.unfit ?? 0;
  const trafficRefused = plan.trafficRefused.length;
  const guarded: RunOutcome = {
    kind: 'partly_refused',
    refused: trafficRefused,
    reason: trafficReason(plan, options.dryRun),
  };
  if (options.dryRun || !result.applied) {
    // A dry run's creates beyond the limit still count (--detailed-exitcode), as in an apply.
    if (trafficRefused > 0) return unfit > 0 ? { ...guarded, unfit } : guarded;
    return options.dryRun ? { kind: 'planned', changes, unfit } : { kind: 'applied', changes };
  }
  const { outcomes, authError } = result.applied;
  if (authError) return { kind: 'failed', reason: authError.message, authError };
  const failed = outcomes.filter((o) => o.result === 'failed').length;
  const skipped = outcomes.filter((o) => o.result === 'skipped').length - unfit;
  if (failed > 0 || unfit > 0) {
    const refused = trafficRefused > 0 ? { refused: guarded.reason } : {};
    return { kind: 'partially_applied', failed, skipped, unfit, ...refused };
  }
  if (skipped > 0) return { kind: 'interrupted', skipped };
  if (trafficRefused > 0) return guarded;
  return { kind: 'applied', changes };
}

function trafficReason(plan: ReconcileResult['plan'], dryRun: boolean): string {
  const days = plan.trafficWindowDays ?? 0;
  const list = plan.trafficRefused.map((refusal) => refusalText(refusal, days)).join('; ');
  const rest = dryRun ? 'would go ahead' : 'went ahead';
  return `traffic guard: ${plan.trafficRefused.length} delete(s) refused (${list}); the rest of the plan ${rest}. Add allow_delete_with_traffic: true to the website's entry, or re-run with --force, if you really mean to delete them`;
}

/** The labels metrics and logs use for a run's result (stable: dashboards and alerts read them). */
export type RunResultLabel = 'success' | 'failure' | 'refused' | 'interrupted';

export interface OutcomeSummary {
  result: RunResultLabel;
  /** Why the run did not succeed, in a few words; undefined on success. */
  reason?: string;
  /** The one-shot CLI's exit status (EXIT_STATUSES: 0 ok, 1 error, 2 changes pending, 3 refused). */
  exitCode: Extract<ExitCode, 0 | 1 | 2 | 3>;
}

export function summariseOutcome(
  outcome: RunOutcome,
  options: { detailedExitcode?: boolean } = {},
): OutcomeSummary {
  switch (outcome.kind) {
    case 'planned':
      // A drift check fails when the plan cannot be applied whole: creates beyond the plan limit.
      if (options.detailedExitcode && outcome.unfit > 0) {
        return { result: 'success', reason: unfitReason(outcome.unfit), exitCode: 1 };
      }
      return { result: 'success', exitCode: options.detailedExitcode && outcome.changes > 0 ? 2 : 0 };
    case 'applied':
      return { result: 'success', exitCode: 0 };
    case 'partially_applied': {
      const failed = outcome.failed + outcome.skipped;
      const reasons = [
        ...(failed > 0 ? [`${failed} operation(s) failed`] : []),
        ...(outcome.unfit > 0 ? [unfitReason(outcome.unfit)] : []),
        ...(outcome.refused ? [outcome.refused] : []),
      ];
      return { result: 'failure', reason: reasons.join('; '), exitCode: 1 };
    }
    case 'partly_refused':
      // As an apply of the same plan (1), and as a dry run whose only trouble is creates that do not fit.
      if (options.detailedExitcode && (outcome.unfit ?? 0) > 0) {
        const reason = `${unfitReason(outcome.unfit ?? 0)}; ${outcome.reason}`;
        return { result: 'refused', reason, exitCode: 1 };
      }
      return { result: 'refused', reason: outcome.reason, exitCode: 3 };
    case 'refused':
      return { result: 'refused', reason: outcome.reason, exitCode: 3 };
    case 'stale':
      // All its reasons a traffic read with no answer now: the plan is not stale, it applies later.
      return {
        result: 'failure',
        reason: `${outcome.unread ? 'not applied, to apply again later' : 'stale plan'}: ${outcome.reasons.join('; ')}`,
        exitCode: 1,
      };
    case 'failed':
      return { result: 'failure', reason: outcome.reason, exitCode: 1 };
    case 'interrupted':
      return { result: 'interrupted', reason: `${outcome.skipped} operation(s) not attempted`, exitCode: 1 };
  }
}

function unfitReason(unfit: number): string {
  return `${unfit} create(s) beyond the account's plan limit not sent`;
}

/** What the notifications of a run are made of (`eventsOfRun`), for --once and the daemon alike. */
export function factsOfRun(result: ReconcileResult, context: { resync: boolean; dryRun: boolean }): RunFacts {
  const outcomes = result.applied?.outcomes ?? [];
  const isFailed = (o: (typeof outcomes)[number]) => o.result === 'failed' || o.result === 'skipped';
  const failed = outcomes.filter(isFailed);
  const done = new Set(outcomes.filter((o) => !isFailed(o)).map((o) => `${o.action} ${o.domain}`));
  return {
    plan: result.plan,
    failed: failed.map((o) => o.domain),
    succeeded: result.plan.changes.filter((c) => done.has(`${c.kind} ${c.domain}`)),
    ...(result.refused ? { refused: result.refused } : {}),
    ...(result.applied?.authError ? { stopped: result.applied.authError.message } : {}),
    ...context,
  };
}
