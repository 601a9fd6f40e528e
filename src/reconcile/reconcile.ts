import type { Logger } from 'pino';
import { type ApplyResult, applyPlan, type Outcome } from '../apply/index.js';
import type { DesiredState, RemoteWebsite, WritableField } from '../model/index.js';
import {
  checkDeleteGuard,
  checkDoubtfulDeletes,
  computePlan,
  type DeleteChange,
  noStateFileWarning,
  type Plan,
  summarise,
} from '../plan/index.js';
import {
  planFromSaved,
  type SavedPlanFile,
  signatureMismatch,
  staleReasons,
  targetMismatch,
} from '../saved-plan/index.js';
import type { WebsiteService } from '../service/index.js';
import {
  backupEntryOf,
  recordApplied,
  recordLifecycle,
  type StateAccess,
  type StateData,
  type StateSession,
} from '../state/index.js';

// One pass of the pipeline: state → service (read) → plan → guard → apply → state. The one-shot CLI and
// the daemon both call this; they only decide when.

export interface ReconcileOptions {
  desired: DesiredState;
  /** Manifest warnings, carried into the plan so every format shows them. */
  warnings: string[];
  service: WebsiteService;
  baseUrl: string;
  /** Keys fingerprints in the state and saved plans: derived from the API key, never written. */
  secret: string;
  /**
   * Where the state and the backups of deleted websites live (a file, PostgreSQL: chosen at start-up):
   * a run that may write takes its lock; a daemon's leader hands over its leadership.
   */
  state: StateAccess;
  prune: boolean;
  /** `--delete-delay` / WEBSITES_SYNC_DELETE_DELAY; else the manifest's `delete_delay`; else 0. */
  deleteDelayMs?: number;
  /** The clock (milliseconds since the epoch); Date.now by default. */
  now?: () => number;
  force: boolean;
  dryRun: boolean;
  concurrency: number;
  logger: Logger;
  signal?: AbortSignal;
  /**
   * Reads the account instead of listing every page (the daemon's re-read of what a manifest edit
   * touched). Its records are read one by one, exactly, so its creates and deletes need no confirming.
   */
  read?: () => Promise<RemoteWebsite[]>;
  /** `--adopt`: unknown write-only fields of existing websites are recorded as declared, not sent. */
  adopt?: boolean;
  /** The plan about to be applied, before its first operation (the CLI prints it first). */
  onApply?: (plan: Plan) => void;
  /** Each operation attempted, as it completes. */
  onOutcome?: (outcome: Outcome) => void;
  /**
   * `--plan`: execute exactly this saved plan instead of a fresh one, and only if nothing it depends on
   * changed (`prune` is then the saved plan's; its `force` adds to this one's).
   */
  saved?: { file: SavedPlanFile; version: string; text: string };
  /** What this run is, as a run waiting for the state's lock is told: `websites-sync --once`. */
  runBy?: string;
}

/** A run's options and what its state file says (where it was looked for, when there is none). */
type PlanningOptions = ReconcileOptions & { noStateFile: string | undefined };

/** The part of the run's settings a reconcile takes as it is (the CLI hands it over whole). */
export type RunSettings = Pick<
  ReconcileOptions,
  'prune' | 'deleteDelayMs' | 'force' | 'dryRun' | 'concurrency' | 'adopt' | 'runBy'
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
  // The state file is read while the first page is on its way.
  const [{ state, doubt, missing }, listed] = await Promise.all([
    (session ?? options.state).read(options),
    untilAborted(options.read ? options.read() : options.service.listWebsites(), options.signal),
  ]);
  logger.debug({ stage: 'service', websites: listed.length }, 'listed the account');
  const noStateFile = missing;
  const { plan, current, stale, force } = await planConfirmed({ ...options, noStateFile }, listed, state);
  plan.warnings.push(...options.warnings);
  if (noStateFile && plan.warnings.includes(noStateFileWarning(noStateFile))) {
    logger.warn({ stage: 'state', path: noStateFile }, noStateFileWarning(noStateFile));
  }
  logger.info({ stage: 'plan', ...summarise(plan), saved: saved !== undefined }, 'plan computed');
  if (stale.length > 0) return { plan, current, stale };

  // Protection, pending deletes and adopted fingerprints are remembered by every real run, a refused
  // one and a saved plan's included: they change nothing on the account. A dry run writes nothing.
  const writes = !options.dryRun;
  const lifecycle = writes && recordLifecycle(state, plan.remember);
  const remembered = (writes && recordAdopted(state, plan)) || lifecycle;
  const refused = force
    ? undefined
    : (checkDeleteGuard({ plan, websitesEmpty: options.desired.websitesEmpty }) ??
      checkDoubtfulDeletes(plan, doubt));
  if (refused || options.dryRun || plan.changes.length === 0) {
    if (remembered) await session?.save(state);
    return refused ? { plan, current, refused } : { plan, current };
  }

  if (!session) return { plan, current };
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
  return { plan, current, applied };
}

/**
 * The plan from the listing, its creates and deletes checked first. A listing read in several pages can
 * miss an edit made meanwhile (one website deleted on an early page while another is added keeps every
 * count right). Creates and deletes act on what the listing says is absent or present, so those
 * decisions are checked: by reading the account again until two listings agree, or, when fewer requests
 * do it, by a lookup per create and a show per delete. A plan of updates only, a converged account, a
 * saved plan and a read of single websites (`read`) cost nothing more.
 */
async function planConfirmed(options: PlanningOptions, listed: RemoteWebsite[], state: StateData) {
  const first = { ...planFrom(options, listed, state), current: listed };
  const confirm = options.service.confirmListing;
  if (!confirm || options.saved || options.read || first.plan.changes.every((c) => c.kind === 'update')) {
    return first;
  }
  const decisions = {
    absent: first.plan.changes.filter((c) => c.kind === 'create').map((c) => c.domain),
    present: first.plan.changes.flatMap((c) => (c.kind === 'delete' ? [c.id] : [])),
  };
  const confirmed = await untilAborted(confirm.call(options.service, decisions), options.signal);
  return confirmed ? { ...planFrom(options, confirmed, state), current: confirmed } : first;
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

/** A stop was asked for while the account was being read: nothing was changed. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted before any change was made');
  }
}

/**
 * Reading a large account takes minutes at the rate limit; a stop asked for meanwhile ends the run at
 * once (the reads left behind change nothing), where a stop during the apply lets it finish its
 * operations in flight.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    // Abandoned: its failure (a request the stop held back) is no news.
    work.catch(() => {});
    return Promise.reject(new Interrupted());
  }
  return new Promise((resolve, reject) => {
    const stop = () => reject(new Interrupted());
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
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

function planFrom(
  options: PlanningOptions,
  current: RemoteWebsite[],
  state: StateData,
): { plan: Plan; stale: string[]; force: boolean } {
  const { desired, saved } = options;
  const fresh = computePlan({
    desired,
    current,
    state,
    prune: saved ? saved.file.saved_plan.prune : options.prune,
    deleteDelayMs: options.deleteDelayMs ?? desired.deleteDelayMs ?? 0,
    now: (options.now ?? Date.now)(),
    adopt: options.adopt === true && !saved,
    ...(options.noStateFile === undefined ? {} : { noStateFile: options.noStateFile }),
  });
  if (!saved) return { plan: fresh, stale: [], force: options.force };
  return {
    // Not stale means the fresh plan agrees with the saved one: what it asks the state to remember holds.
    plan: { ...planFromSaved(saved.file, desired, current.length), remember: fresh.remember },
    stale: staleReasons(saved.file, { desired, current, state, fresh, secret: options.secret }),
    force: options.force || saved.file.saved_plan.force,
  };
}
