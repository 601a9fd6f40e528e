import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { type RemoteWebsite, SERVICE_CREATE_DEFAULTS } from '../model.js';
import type { Change, CreateChange, DeleteChange, Plan, UpdateChange } from '../plan/index.js';
import type { WebsiteService } from '../service/client.js';
import { AuthError, ServiceError } from '../service/errors.js';
import { forgetWebsite, type StateData } from '../state/index.js';
import { createdSettings, recordWrite } from './record.js';

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
  id: number | undefined;
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
      try {
        const outcome = await applyChange(change, options);
        outcomes.push(outcome);
        log(options.logger, outcome);
      } catch (error) {
        if (error instanceof AuthError) authError ??= error;
        const outcome = failure(change, error);
        outcomes.push(outcome);
        log(options.logger, outcome);
      }
    };
    await Promise.all(changes.map((change) => limit(() => run(change))));
    await options.persist?.();
  }
  const failed = outcomes.filter((o) => o.result === 'failed' || o.result === 'skipped').length;
  return { outcomes, failed, authError };
}

function applyChange(change: Change, options: ApplyOptions): Promise<Outcome> {
  switch (change.kind) {
    case 'delete':
      return applyDelete(change, options);
    case 'update':
      return applyUpdate(change, options);
    case 'create':
      return applyCreate(change, options);
  }
}

async function applyDelete(change: DeleteChange, { service, state }: ApplyOptions): Promise<Outcome> {
  const result = await service.deleteWebsite(change.id);
  forgetWebsite(state, change.id);
  return outcomeOf(change, result, change.id);
}

async function applyUpdate(change: UpdateChange, { service, state, logger }: ApplyOptions): Promise<Outcome> {
  const record = await service.updateWebsite(change.id, change.send);
  recordWrite(state, record, change.send, logger);
  return outcomeOf(change, 'updated', record.id);
}

/** A store is never retried blindly: after any doubt, the domain is looked up first. */
async function applyCreate(change: CreateChange, options: ApplyOptions): Promise<Outcome> {
  const { service, state, logger } = options;
  const full = createdSettings(change.send, SERVICE_CREATE_DEFAULTS);
  for (let attempt = 1; ; attempt++) {
    try {
      const record = await service.createWebsite(change.domain, change.send);
      recordWrite(state, record, full, logger);
      return outcomeOf(change, 'created', record.id);
    } catch (error) {
      if (!(error instanceof ServiceError) || error instanceof AuthError) throw error;
      if (isDomainTaken(error)) return adoptTaken(change, options);
      if (!error.ambiguous || attempt >= 3) throw error;
      const found = await service.findWebsite(change.domain);
      if (found) {
        // Our store was committed and only its answer was lost: the website holds what we sent.
        recordWrite(state, found, full, logger);
        return outcomeOf(change, 'created', found.id);
      }
      logger.warn(
        { domain: change.domain, attempt, err: error.message },
        'store failed before taking effect; retrying',
      );
    }
  }
}

/** "Already taken": ours (a website the listing missed) is adopted and updated; another account's fails. */
async function adoptTaken(change: CreateChange, options: ApplyOptions): Promise<Outcome> {
  const { service, state, logger } = options;
  const found: RemoteWebsite | undefined = await service.findWebsite(change.domain);
  if (!found) {
    throw new ServiceError(
      `${change.domain} belongs to another account of the service; it cannot be added here`,
      {
        method: 'POST',
        path: '/api/v1/websites',
        status: 422,
      },
    );
  }
  const full = createdSettings(change.send, SERVICE_CREATE_DEFAULTS);
  const record = await service.updateWebsite(found.id, full);
  recordWrite(state, record, full, logger);
  return outcomeOf(change, 'adopted', record.id);
}

function isDomainTaken(error: ServiceError): boolean {
  return error.status === 422 && (error.fieldErrors.domain ?? []).some((m) => /already been taken/i.test(m));
}

function outcomeOf(change: Change, result: OutcomeResult, id: number | undefined): Outcome {
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
