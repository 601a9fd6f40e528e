import type { Logger } from 'pino';
import type { PlanSummary } from '../plan/index.js';
import type { ReconcileResult } from '../reconcile/index.js';

// What a run's plan held back (observed drift, pending deletes, protected websites): counted in the
// metrics and warned about in every run's log.

export function heldBackOf({ observed, pending_delete, protected: kept }: PlanSummary) {
  return { observed, pending_delete, protected: kept };
}

/** A bad merge under delete_delay, or drift on an observed website, is a warning in every run's log. */
export function warnHeldBack({ plan }: ReconcileResult, logger: Logger): void {
  if (plan.pendingDeletes.length > 0) {
    const pending = plan.pendingDeletes.map(({ domain, id, since, due }) => ({ domain, id, since, due }));
    logger.warn({ stage: 'plan', pending }, `${pending.length} delete(s) pending (delete_delay)`);
  }
  if (plan.observed.length > 0) {
    const drifted = plan.observed.map((change) => change.domain);
    logger.warn({ stage: 'plan', drifted }, `${drifted.length} observed website(s) drifted (not applied)`);
  }
}
