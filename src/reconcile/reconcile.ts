import { type ApplyResult, applyPlan } from '../apply/index.js';
import type { PlanLimit, RemoteWebsite, WritableField } from '../model/index.js';
import type { DeleteChange, Plan } from '../plan/index.js';
import { planFromSaved, signatureMismatch, targetMismatch } from '../saved-plan/index.js';
import {
  backupEntryOf,
  forgetAbsent,
  recordApplied,
  recordLifecycle,
  type StateData,
  type StateSession,
} from '../state/index.js';
import { Interrupted } from './interrupted.js';
import { planRun } from './plan-run.js';
import type { ReconcileOptions } from './reconcile-options.js';

// One pass of the pipeline: state → service (read) → plan → guard → apply → state. The one-shot CLI and
// the daemon both call this; they only decide when.

export type { ReconcileOptions } from './reconcile-options.js';

/** The part of the run's settings a reconcile takes as it is (the CLI hands it over whole). */
export type RunSettings = Pick<
  ReconcileOptions,
  | 'prune'
  | 'deleteDelayMs'
  | 'force'
  | 'dryRun'
  | 'concurrency'
  | 'adopt'
  | 'runBy'
  | 'trafficWindowDays'
  | 'trafficGuard'
>;

export interface ReconcileResult {
  plan: Plan;
  /** Why the mass-delete guard refused the plan (nothing was applied). */
  refused?: string;
  /** Absent on a dry run or a refusal. */
  applied?: ApplyResult;
  /** The listing the plan was computed from (absent when the run stopped before listing). */
  current?: RemoteWebsite[];
  /** Why the saved plan no longer applies; nothing was applied. */
  stale?: string[];
  /**
   * The reasons in `stale` are all deletes whose traffic got no answer now: the plan still matches
   * what it was computed from, and applies as saved once the service answers.
   */
  unread?: boolean;
  /** The account's plan limit as read this run (the daemon keeps it for the edits until the next resync). */
  planLimit?: PlanLimit;
}

/**
 * A run that may write holds the state's lock throughout: two runs never interleave their writes, and
 * an unwritable state (or a state or backup path that is not a regular file) is found before the first
 * request is sent. Its reads and writes go through the lock (`session`); if the lock is lost (the
 * PostgreSQL connection ended), the run starts no new operation and writes nothing more. A dry run
 * reads without the lock and writes nothing.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  if (options.dryRun) return reconcileOnce(options, undefined);
  const session = await lockOf(options);
  const signal = options.signal ? AbortSignal.any([options.signal, session.lost]) : session.lost;
  try {
    const result = await reconcileOnce({ ...options, signal }, session);
    // The lock was lost part-way: what was applied after the last write is not recorded, and said so.
    if (session.lost.aborted) throw session.lost.reason;
    return result;
  } catch (error) {
    throw session.lost.aborted ? session.lost.reason : error;
  } finally {
    await session.release();
  }
}

/** The state's lock; waiting for another run's ends at once on a stop. */
async function lockOf(options: ReconcileOptions): Promise<StateSession> {
  const { logger, signal } = options;
  try {
    return await options.state.lock({
      command: options.runBy ?? 'websites-sync',
      ...(signal ? { signal } : {}),
      warn: (message) => logger.warn({ stage: 'state' }, message),
    });
  } catch (error) {
    if (signal?.aborted) throw new Interrupted();
    throw error;
  }
}

async function reconcileOnce(
  options: ReconcileOptions,
  session: StateSession | undefined,
): Promise<ReconcileResult> {
  const { logger, saved } = options;
  if (saved) {
    // Another service or tool version, or a file changed since it was saved: stop before sending
    // anything, the key included.
    const mismatch = [
      ...targetMismatch(saved.file, { baseUrl: options.baseUrl, version: saved.version }),
      ...signatureMismatch(saved.text, options.secret),
    ];
    if (mismatch.length > 0) return { plan: planFromSaved(saved.file, options.desired, 0), stale: mismatch };
  }
  const { plan, current, planLimit, stale, unread, refused, state } = await planRun(options, session);
  const read = { plan, current, ...(planLimit ? { planLimit } : {}) };
  if (stale.length > 0) return { ...read, stale, ...(unread ? { unread } : {}) };

  // Protection, pending deletes and adopted fingerprints are remembered by every real run, a refused
  // one and a saved plan's included: they change nothing on the account; and what the state held of
  // websites the account no longer has is forgotten. A dry run writes nothing.
  const writes = !options.dryRun;
  const lifecycle = writes && recordLifecycle(state, plan.remember);
  const forgotten = writes && forgetAbsent(state, current);
  const remembered = (writes && recordAdopted(state, plan)) || lifecycle || forgotten;
  if (refused || options.dryRun || plan.changes.length === 0) {
    if (remembered) await session?.save(state);
    return refused ? { ...read, refused } : read;
  }

  if (!session) return read;
  options.onApply?.(plan);
  const applied = await applyPlan(plan, {
    service: options.service,
    state,
    concurrency: options.concurrency,
    logger: logger.child({ stage: 'apply' }),
    persist: () => session.save(state),
    beforeDelete: backupBeforeDelete(options, current, session),
    signal: options.signal,
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
  });
  return { ...read, applied };
}

/** `--adopt`: the declared values of the adopted websites' write-only fields, as if they had been sent. */
function recordAdopted(state: StateData, plan: Plan): boolean {
  for (const { id, domain, values } of plan.adopted) {
    for (const [field, value] of Object.entries(values)) {
      recordApplied(state, { id, domain }, field as WritableField, value);
    }
  }
  return plan.adopted.length > 0;
}

/** The settings of each website about to be deleted, as last read, appended to the backup file. */
function backupBeforeDelete(
  options: ReconcileOptions,
  current: readonly RemoteWebsite[],
  session: StateSession,
) {
  const byId = new Map(current.map((record) => [record.id, record]));
  return async (change: DeleteChange): Promise<void> => {
    const record = byId.get(change.id) ?? { id: change.id, domain: change.domain };
    await session.appendBackup(backupEntryOf(record, options.baseUrl, new Date((options.now ?? Date.now)())));
  };
}
