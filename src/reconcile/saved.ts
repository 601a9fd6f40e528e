import type { DesiredState, RemoteWebsite, TrafficGuardSettings, TrafficReading } from '../model/index.js';
import type { Change, Plan } from '../plan/index.js';
import { planFromSaved, type SavedPlanFile, staleReasons, unreadReasons } from '../saved-plan/index.js';
import type { StateData } from '../state/index.js';

export interface SavedContext {
  desired: DesiredState;
  secret: string;
  /** The plan computed afresh from the same manifest, listing and state, its guards applied. */
  fresh: Plan;
  current: readonly RemoteWebsite[];
  state: StateData;
  /** Each delete's visitors, read this run. */
  traffic: ReadonlyMap<string, TrafficReading>;
  settings: TrafficGuardSettings;
}

/**
 * `--plan`: exactly the saved operations, and why they no longer apply, if they do not. Not stale means
 * the fresh plan agrees with the saved one: what it asks the state to remember, each delete's traffic
 * and the creates that do not fit hold for the saved plan too.
 */
export function savedPlanFor(
  file: SavedPlanFile,
  context: SavedContext,
): { plan: Plan; stale: string[]; unread: boolean } {
  const { fresh } = context;
  const traffic = { readings: context.traffic, windowDays: context.settings.windowDays };
  const stale = staleReasons(file, { ...context, traffic });
  // Every reason a delete's traffic unread now: the plan is not stale, it applies as saved later.
  const unread = stale.length > 0 && stale.length === unreadReasons(file.saved_plan, traffic).length;
  const base = planFromSaved(file, context.desired, context.current.length);
  const byKey = new Map(fresh.changes.map((change) => [keyOf(change), change]));
  const changes = base.changes.map((change): Change => {
    const now = byKey.get(keyOf(change));
    if (change.kind === 'delete' && now?.kind === 'delete' && now.traffic)
      return { ...change, traffic: now.traffic };
    if (change.kind === 'create' && now?.kind === 'create' && now.unfit) return { ...change, unfit: true };
    return change;
  });
  const plan: Plan = {
    ...base,
    changes,
    remember: fresh.remember,
    trafficRefused: fresh.trafficRefused,
    ...(fresh.trafficWindowDays === undefined ? {} : { trafficWindowDays: fresh.trafficWindowDays }),
    ...(fresh.capacity ? { capacity: fresh.capacity } : {}),
  };
  return { plan, stale, unread };
}

function keyOf(change: Change): string {
  return change.kind === 'create' ? `create ${change.domain}` : `${change.kind} ${String(change.id)}`;
}
