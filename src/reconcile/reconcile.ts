import type { Logger } from 'pino';
import { type ApplyResult, applyPlan, type Outcome } from '../apply/index.js';
import { appendBackup, backupEntryOf, backupPathFor, checkBackupPath } from '../backup/index.js';
import type { DesiredState, PlanLimit, RemoteWebsite, WritableField } from '../model/index.js';
import {
  checkDeleteGuard,
  checkDoubtfulDeletes,
  computePlan,
  type DeleteChange,
  noStateFileWarning,
  type Plan,
  summarise,
} from '../plan/index.js';
import { planFromSaved, type SavedPlanFile, signatureMismatch, targetMismatch } from '../saved-plan/index.js';
import type { WebsiteService } from '../service/index.js';
import {
  lockState,
  recordApplied,
  recordLifecycle,
  type StateData,
  type StateLock,
  saveState,
} from '../state/index.js';
import { type GuardOptions, guardPlan, readDeleteTraffic, readPlanLimit, trafficSettings } from './guards.js';
import { readState } from './read-state.js';
import { savedPlanFor } from './saved.js';

// One pass of the pipeline: state → service (read) → plan → guard → apply → state. The one-shot CLI and
// the daemon both call this; they only decide when.

export interface ReconcileOptions extends GuardOptions {
  desired: DesiredState;
  /** Manifest warnings, carried into the plan so every format shows them. */
  warnings: string[];
  service: WebsiteService;
  baseUrl: string;
  /** Keys fingerprints in the state and saved plans: derived from the API key, never written. */
  secret: string;
  statePath: string;
  /** Where each deleted website's settings are appended before its delete (`--backup-file`). */
  backupPath?: string;
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
  | 'statePath'
  | 'backupPath'
  | 'prune'
  | 'deleteDelayMs'
  | 'force'
  | 'dryRun'
  | 'concurrency'
  | 'adopt'
  | 'trafficWindowDays'
  | 'trafficGuard'
  | 'runBy'
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
  /** The account's plan limit as read this run (the daemon keeps it for the edits until the next resync). */
  planLimit?: PlanLimit;
}

/**
 * A run that may write holds the state file's lock throughout: two runs never interleave their writes,
 * and an unwritable state (or a state or backup path that is not a regular file) is found before the
 * first request is sent. A dry run writes nothing.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  if (options.dryRun) return reconcileOnce(options);
  await checkBackupPath(options.statePath, options.backupPath);
  const lock = await lockOf(options);
  try {
    return await reconcileOnce(options);
  } finally {
    await lock.release();
  }
}

/** The state's lock; waiting for another run's ends at once on a stop. */
async function lockOf(options: ReconcileOptions): Promise<StateLock> {
  const { logger, signal } = options;
  try {
    return await lockState(options.statePath, {
      command: options.runBy ?? 'websites-sync',
      ...(signal ? { signal } : {}),
      warn: (message) => logger.warn({ stage: 'state', path: options.statePath }, message),
    });
  } catch (error) {
    if (signal?.aborted) throw new Interrupted();
    throw error;
  }
}

async function reconcileOnce(options: ReconcileOptions): Promise<ReconcileResult> {
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
  const { plan, current, planLimit, stale, refused, state } = await planRun(options);
  const read = { plan, current, ...(planLimit ? { planLimit } : {}) };
  if (stale.length > 0) return { ...read, stale };

  // Protection, pending deletes and adopted fingerprints are remembered by every real run, a refused
  // one and a saved plan's included: they change nothing on the account. A dry run writes nothing.
  const writes = !options.dryRun;
  const lifecycle = writes && recordLifecycle(state, plan.remember);
  const remembered = (writes && recordAdopted(state, plan)) || lifecycle;
  if (refused || options.dryRun || plan.changes.length === 0) {
    if (remembered) await saveState(options.statePath, state);
    return refused ? { ...read, refused } : read;
  }

  options.onApply?.(plan);
  const applied = await applyPlan(plan, {
    service: options.service,
    state,
    concurrency: options.concurrency,
    logger: logger.child({ stage: 'apply' }),
    persist: () => saveState(options.statePath, state),
    beforeDelete: backupBeforeDelete(options, current),
    signal: options.signal,
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
  });
  return { ...read, applied };
}

/** Everything read and decided before the first change: the plan, guarded, and whether it may go ahead. */
async function planRun(options: ReconcileOptions) {
  const { logger, saved } = options;
  // The state file is read, and the account's plan limit asked, while the first page is on its way.
  const [{ state, doubt, missing }, listed, planLimit] = await Promise.all([
    readState(options),
    untilAborted(options.read ? options.read() : options.service.listWebsites(), options.signal),
    untilAborted(readPlanLimit(options), options.signal),
  ]);
  logger.debug({ stage: 'service', websites: listed.length }, 'listed the account');
  const noStateFile = missing ? options.statePath : undefined;
  const { fresh, current } = await planConfirmed({ ...options, noStateFile }, listed, state);
  const force = options.force || (saved?.file.saved_plan.force ?? false);
  // A plan the mass-delete guard refuses as a whole is not worth a traffic read per delete.
  const refused = force
    ? undefined
    : (checkDeleteGuard({ plan: fresh, websitesEmpty: options.desired.websitesEmpty }) ??
      checkDoubtfulDeletes(fresh, doubt));
  const settings = trafficSettings(options);
  const traffic =
    refused && !saved
      ? new Map()
      : await untilAborted(readDeleteTraffic(options, fresh, settings), options.signal);
  const guarded = guardPlan(fresh, options, { settings, traffic, limit: planLimit, force });
  const { plan, stale } = saved
    ? savedPlanFor(saved.file, { ...options, fresh: guarded, current, state, traffic, settings })
    : { plan: refused ? fresh : guarded, stale: [] };
  plan.warnings.push(...options.warnings);
  if (noStateFile && plan.warnings.includes(noStateFileWarning(noStateFile))) {
    logger.warn({ stage: 'state', path: noStateFile }, noStateFileWarning(noStateFile));
  }
  logger.info({ stage: 'plan', ...summarise(plan), saved: saved !== undefined }, 'plan computed');
  return { plan, current, planLimit, stale, refused, state };
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
  const first = { fresh: freshPlan(options, listed, state), current: listed };
  const confirm = options.service.confirmListing;
  if (!confirm || options.saved || options.read || first.fresh.changes.every((c) => c.kind === 'update')) {
    return first;
  }
  const decisions = {
    absent: first.fresh.changes.filter((c) => c.kind === 'create').map((c) => c.domain),
    present: first.fresh.changes.flatMap((c) => (c.kind === 'delete' ? [c.id] : [])),
  };
  const confirmed = await untilAborted(confirm.call(options.service, decisions), options.signal);
  return confirmed ? { fresh: freshPlan(options, confirmed, state), current: confirmed } : first;
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
function backupBeforeDelete(options: ReconcileOptions, current: readonly RemoteWebsite[]) {
  const path = backupPathFor(options.statePath, options.backupPath);
  const byId = new Map(current.map((record) => [record.id, record]));
  return async (change: DeleteChange): Promise<void> => {
    const record = byId.get(change.id) ?? { id: change.id, domain: change.domain };
    await appendBackup(path, backupEntryOf(record, options.baseUrl, new Date((options.now ?? Date.now)())));
  };
}

/** The plan computed afresh (with the saved plan's prune when one is applied), before the guards. */
function freshPlan(options: PlanningOptions, current: RemoteWebsite[], state: StateData): Plan {
  const { desired, saved } = options;
  return computePlan({
    desired,
    current,
    state,
    prune: saved ? saved.file.saved_plan.prune : options.prune,
    deleteDelayMs: options.deleteDelayMs ?? desired.deleteDelayMs ?? 0,
    now: (options.now ?? Date.now)(),
    adopt: options.adopt === true && !saved,
    ...(options.noStateFile === undefined ? {} : { noStateFile: options.noStateFile }),
  });
}
