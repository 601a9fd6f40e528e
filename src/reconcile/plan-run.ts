import type { RemoteWebsite } from '../model/index.js';
import {
  checkDeleteGuard,
  checkDoubtfulDeletes,
  computePlan,
  noStateWarning,
  type Plan,
  summarise,
} from '../plan/index.js';
import { type MissingState, type StateData, type StateSession, withPreviousSecrets } from '../state/index.js';
import { guardPlan, readDeleteTraffic, readPlanLimit, trafficSettings } from './guards.js';
import { untilAborted } from './interrupted.js';
import type { ReconcileOptions } from './reconcile-options.js';
import { savedPlanFor } from './saved.js';

// Everything a run reads and decides before its first change: the state, the listing and the account's
// plan limit (together), the plan confirmed, the mass-delete guard, each delete's traffic, the guards.

/** A run's options and what its state file says (where it was looked for, when there is none). */
type PlanningOptions = ReconcileOptions & { noState: MissingState | undefined };

export async function planRun(options: ReconcileOptions, session: StateSession | undefined) {
  const { logger, saved } = options;
  // The state is read, and the account's plan limit asked, while the first page is on its way.
  const [{ state: read, doubt, missing }, listed, planLimit] = await Promise.all([
    (session ?? options.state).read(options),
    untilAborted(options.read ? options.read() : options.service.listWebsites(), options.signal),
    untilAborted(readPlanLimit(options), options.signal),
  ]);
  logger.debug({ stage: 'service', websites: listed.length }, 'listed the account');
  const state = withPreviousSecrets(read, options.previousSecrets);
  const { fresh, current } = await planConfirmed({ ...options, noState: missing }, listed, state);
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
  const { plan, stale, unread } = saved
    ? savedPlanFor(saved.file, { ...options, fresh: guarded, current, state, traffic, settings })
    : { plan: refused ? fresh : guarded, stale: [], unread: false };
  plan.warnings.push(...options.warnings);
  // Said at warn level too, unless the caller logs every warning of the plan (the daemon does).
  const noState = missing && noStateWarning(missing);
  if (noState && !options.warningsLogged && plan.warnings.includes(noState)) {
    logger.warn({ stage: 'state', state: missing.where }, noState);
  }
  logger.info({ stage: 'plan', ...summarise(plan), saved: saved !== undefined }, 'plan computed');
  return { plan, current, planLimit, stale, unread, refused, state };
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
    ...(options.noState === undefined ? {} : { noState: options.noState }),
  });
}
