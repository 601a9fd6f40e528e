import type { Logger } from 'pino';
import { type ApplyResult, applyPlan } from '../apply/index.js';
import type { DesiredState } from '../model.js';
import { checkDeleteGuard, computePlan, type Plan, summarise } from '../plan/index.js';
import type { WebsiteService } from '../service/client.js';
import { loadState, saveState } from '../state/index.js';

// One pass of the pipeline: state → service (read) → plan → guard → apply → state. The one-shot CLI and
// the daemon both call this; they only decide when.

export interface ReconcileOptions {
  desired: DesiredState;
  /** Manifest warnings, carried into the plan so every format shows them. */
  warnings: string[];
  service: WebsiteService;
  baseUrl: string;
  statePath: string;
  prune: boolean;
  force: boolean;
  dryRun: boolean;
  concurrency: number;
  logger: Logger;
  signal?: AbortSignal;
}

export interface ReconcileResult {
  plan: Plan;
  /** Why the mass-delete guard refused the plan (nothing was applied). */
  refused?: string;
  /** Absent on a dry run or a refusal. */
  applied?: ApplyResult;
}

export async function reconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  const { logger } = options;
  const loaded = await loadState(options.statePath, options.baseUrl);
  if (loaded.discarded) {
    logger.info(
      { stage: 'state', path: options.statePath, reason: loaded.discarded },
      'write-only fields will be resent once',
    );
  }
  const current = await options.service.listWebsites();
  logger.debug({ stage: 'service', websites: current.length }, 'listed the account');
  const plan = computePlan({ desired: options.desired, current, state: loaded.state, prune: options.prune });
  plan.warnings.push(...options.warnings);
  logger.info({ stage: 'plan', ...summarise(plan) }, 'plan computed');

  const refused = options.force
    ? undefined
    : checkDeleteGuard({ plan, websitesEmpty: options.desired.websitesEmpty });
  if (refused) return { plan, refused };
  if (options.dryRun || plan.changes.length === 0) return { plan };

  const persist = () => saveState(options.statePath, loaded.state);
  const applied = await applyPlan(plan, {
    service: options.service,
    state: loaded.state,
    concurrency: options.concurrency,
    logger: logger.child({ stage: 'apply' }),
    persist,
    signal: options.signal,
  });
  return { plan, applied };
}
