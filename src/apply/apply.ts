import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { WebsiteId } from '../model/index.js';
import type { Change, DeleteChange, Plan, UpdateChange } from '../plan/index.js';
import { AuthError, ServiceError, type WebsiteService } from '../service/index.js';
import { forgetWebsite, isProtected, type StateData } from '../state/index.js';
import { createWebsite } from './create.js';
import { recordWrite } from './record.js';

export type OutcomeResult =
  | 'created'
  | 'adopted'
  | 'updated'
  | 'deleted'
  | 'already-gone'
  | 'failed'
  | 'skipped';

export interface Outcome {
  action: Change['kind'];
  domain: string;
  id: WebsiteId | undefined;
  result: OutcomeResult;
  /** The service's message, for failures. */
  error?: string;
}

export interface ApplyOptions {
  service: WebsiteService;
  state: StateData;
  concurrency: number;
  logger: Logger;
  /** Persists the state; called after each phase so a crash loses little. */
  persist?: () => Promise<void>;
  /** Aborted: no new operation starts (daemon shutdown); those in flight finish. */
  signal?: AbortSignal;
}

export interface ApplyResult {
  outcomes: Outcome[];
  failed: number;
  /** Set when the service refused the key: the run stopped at once. */
  authError?: AuthError;
}

const PHASES: Change['kind'][] = ['delete', 'update', 'create'];

/** Executes the plan: deletes, then updates, then creates, each phase with limited concurrency. */
export async function applyPlan(plan: Plan, options: ApplyOptions): Promise<ApplyResult> {
  const limit = pLimit(Math.max(1, options.concurrency));
  const outcomes: Outcome[] = [];
  let authError: AuthError | undefined;
  for (const kind of PHASES) {
    const changes = plan.changes.filter((c) => c.kind === kind);
    if (changes.length === 0) continue;
    const run = async (change: Change): Promise<void> => {
      if (authError || options.signal?.aborted) {
        outcomes.push(outcomeOf(change, 'skipped', change.kind === 'create' ? undefined : change.id));
        return;
      }
      let outcome: Outcome;
      try {
        outcome = await applyChange(change, options);
      } catch (error) {
        if (error instanceof AuthError) authError ??= error;
        outcome = failure(change, error);
      }
      outcomes.push(outcome);
      log(options.logger, outcome);
    };
    await Promise.all(changes.map((change) => limit(() => run(change))));
    // After every phase, the run stopping on an auth error included: the state holds what was applied.
    await options.persist?.();
  }
  const failed = outcomes.filter((o) => o.result === 'failed' || o.result === 'skipped').length;
  return { outcomes, failed, authError };
}

async function applyChange(change: Change, options: ApplyOptions): Promise<Outcome> {
  switch (change.kind) {
    case 'delete':
      return applyDelete(change, options);
    case 'update':
      return applyUpdate(change, options);
    case 'create': {
      const created = await createWebsite(change, options);
      return outcomeOf(change, created.result, created.id);
    }
  }
}

async function applyDelete(change: DeleteChange, { service, state }: ApplyOptions): Promise<Outcome> {
  // The last line of defence: a plan saved before the website was protected still never deletes it.
  if (isProtected(state, change.id)) {
    return { ...outcomeOf(change, 'failed', change.id), error: 'not deleted: the website is protected' };
  }
  const result = await service.deleteWebsite(change.id);
  forgetWebsite(state, change.id);
  return outcomeOf(change, result, change.id);
}

async function applyUpdate(change: UpdateChange, { service, state, logger }: ApplyOptions): Promise<Outcome> {
  const record = await service.updateWebsite(change.id, change.send);
  recordWrite(state, record, change.send, logger);
  return outcomeOf(change, 'updated', record.id);
}

function outcomeOf(change: Change, result: OutcomeResult, id: WebsiteId | undefined): Outcome {
  return { action: change.kind, domain: change.domain, id, result };
}

function failure(change: Change, error: unknown): Outcome {
  const message =
    error instanceof ServiceError ? error.details : error instanceof Error ? error.message : String(error);
  return { ...outcomeOf(change, 'failed', change.kind === 'create' ? undefined : change.id), error: message };
}

function log(logger: Logger, outcome: Outcome): void {
  const fields = { action: outcome.action, domain: outcome.domain, id: outcome.id, result: outcome.result };
  if (outcome.result === 'failed')
    logger.error({ ...fields, error: outcome.error }, `${outcome.action} failed`);
  else logger.info(fields, `${outcome.action} ${outcome.result}`);
}
