import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { WebsiteId } from '../model/index.js';
import { type Change, type DeleteChange, type Plan, type UpdateChange, unfitText } from '../plan/index.js';
import { AuthError, NotSentError, ServiceError, type WebsiteService } from '../service/index.js';
import { forgetWebsite, isProtected, type StateData } from '../state/index.js';
import { createWebsite } from './create.js';
import { CoalescedSaver } from './persist.js';
import { recordWrite } from './record.js';

export type OutcomeResult =
  | 'created'
  | 'adopted'
  | 'updated'
  | 'deleted'
  | 'already-gone'
  | 'failed'
  | 'skipped';

/** Every result an operation of each kind can end with (metrics start each at 0). */
export const OPERATION_RESULTS: Readonly<Record<Change['kind'], readonly OutcomeResult[]>> = {
  create: ['created', 'adopted', 'failed', 'skipped'],
  update: ['updated', 'failed', 'skipped'],
  delete: ['deleted', 'already-gone', 'failed', 'skipped'],
};

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
  /**
   * Persists the state: while a phase runs (at most once per `persistIntervalMs`, default 1 s) and after
   * each phase, so a kill loses at most the last second of fingerprints.
   */
  persist?: () => Promise<void>;
  persistIntervalMs?: number;
  /**
   * Called before each delete is sent (the backup of the website's settings); when it throws, the
   * delete is not sent and is reported as failed.
   */
  beforeDelete?: (change: DeleteChange) => Promise<void>;
  /** Aborted: no new operation starts (daemon shutdown); those in flight finish. */
  signal?: AbortSignal;
  /** Each operation attempted, as it completes (the CLI prints a line per operation). */
  onOutcome?: (outcome: Outcome) => void;
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
  // The service's limiter when it has one (the run's only one); a substitute service brings none.
  const limit = options.service.limit ?? pLimit(Math.max(1, options.concurrency));
  const outcomes: Outcome[] = [];
  let authError: AuthError | undefined;
  let limitReached = false;
  const saver = new CoalescedSaver({
    save: () => options.persist?.() ?? Promise.resolve(),
    intervalMs: options.persistIntervalMs ?? 1_000,
  });
  for (const kind of PHASES) {
    const changes = plan.changes.filter((c) => c.kind === kind);
    if (changes.length === 0) continue;
    const run = async (change: Change): Promise<void> => {
      if (authError || options.signal?.aborted || (limitReached && change.kind === 'create')) {
        const skipped = outcomeOf(change, 'skipped', change.kind === 'create' ? undefined : change.id);
        outcomes.push(limitReached && !authError ? { ...skipped, error: LIMIT_REACHED } : skipped);
        return;
      }
      let outcome: Outcome;
      try {
        // Beyond the account's plan limit, as the plan said before anything was sent: not sent.
        outcome =
          change.kind === 'create' && change.unfit
            ? { ...outcomeOf(change, 'skipped', undefined), error: unfitText(plan.capacity) }
            : await applyChange(change, options);
      } catch (error) {
        if (error instanceof AuthError) authError ??= error;
        if (isPlanLimit(error)) limitReached = true;
        outcome = error instanceof NotSentError ? notSent(change) : failure(change, error);
      }
      outcomes.push(outcome);
      log(options.logger, outcome);
      options.onOutcome?.(outcome);
      saver.changed();
    };
    await Promise.all(changes.map((change) => limit(() => run(change))));
    // After every phase, the run stopping on an auth error included: the state holds what was applied.
    await saver.flush();
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

async function applyDelete(change: DeleteChange, options: ApplyOptions): Promise<Outcome> {
  const { service, state } = options;
  // The last line of defence: a plan saved before the website was protected still never deletes it.
  if (isProtected(state, change.id)) {
    return { ...outcomeOf(change, 'failed', change.id), error: 'not deleted: the website is protected' };
  }
  try {
    await options.beforeDelete?.(change);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      ...outcomeOf(change, 'failed', change.id),
      error: `not deleted: its backup could not be written (${why})`,
    };
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

const LIMIT_REACHED = "not attempted: the account's website limit is reached";

/**
 * The account's plan allows no more websites: a 422 on `domain` that is neither "already taken" nor a
 * format error ("You have reached the maximum number of websites allowed."; the wording varies by
 * version). Every further create would meet the same answer, so none is sent.
 */
function isPlanLimit(error: unknown): boolean {
  if (!(error instanceof ServiceError) || error.status !== 422) return false;
  return (error.fieldErrors?.domain ?? []).some(
    (message) =>
      /maxim|limit|reached|allowed|upgrade/i.test(message) && !/taken|valid|format|required/i.test(message),
  );
}

function outcomeOf(change: Change, result: OutcomeResult, id: WebsiteId | undefined): Outcome {
  return { action: change.kind, domain: change.domain, id, result };
}

/** Stopped before its request was sent (a signal arrived while it waited for its turn). */
function notSent(change: Change): Outcome {
  const id = change.kind === 'create' ? undefined : change.id;
  return { ...outcomeOf(change, 'skipped', id), error: 'not attempted: the run was stopped' };
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
