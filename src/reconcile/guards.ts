import pLimit from 'p-limit';
import {
  type DesiredState,
  type PlanLimit,
  TRAFFIC_WINDOW_DEFAULT_DAYS,
  type TrafficGuardMode,
  type TrafficGuardSettings,
  type TrafficReading,
  websiteKey,
} from '../model/index.js';
import { fitCapacity, guardTraffic, type Plan } from '../plan/index.js';
import type { WebsiteService } from '../service/index.js';

// The guards that read the service before anything is changed: the account's plan limit (one request
// per run, beside the listing) and each delete's traffic (one request per delete). The reads are here;
// what they mean is the plan's (pure: `guardTraffic`, `fitCapacity`), so a dry run, a saved plan and an
// apply all show and decide the same.

/** What the guards take of a reconcile's options. */
export interface GuardOptions {
  desired: DesiredState;
  service: WebsiteService;
  concurrency: number;
  now?: () => number;
  /** `--traffic-window` (days); else the manifest's `traffic_window`; else 30. */
  trafficWindowDays?: number;
  /** `--traffic-guard`; else the manifest's `traffic_guard`; else lenient. */
  trafficGuard?: TrafficGuardMode;
  /** The account's plan limit, already read this resync (the daemon's edit runs): not asked again. */
  planLimit?: PlanLimit;
}

/** The traffic guard's settings: the option, else the manifest, else 30 days and lenient. */
export function trafficSettings(options: GuardOptions): TrafficGuardSettings {
  const { desired } = options;
  return {
    windowDays: options.trafficWindowDays ?? desired.trafficWindowDays ?? TRAFFIC_WINDOW_DEFAULT_DAYS,
    mode: options.trafficGuard ?? desired.trafficGuard ?? 'lenient',
  };
}

/**
 * The account's plan limit: the one the daemon read this resync, else one request; undefined when the
 * service cannot be asked (a substitute without the read).
 */
export function readPlanLimit(options: GuardOptions): Promise<PlanLimit | undefined> {
  if (options.planLimit) return Promise.resolve(options.planLimit);
  return options.service.readPlanLimit?.() ?? Promise.resolve(undefined);
}

/** Each delete's visitors over the window, one request each, under the run's concurrency limit. */
export async function readDeleteTraffic(
  options: GuardOptions,
  plan: Plan,
  settings: TrafficGuardSettings,
): Promise<Map<string, TrafficReading>> {
  const traffic = new Map<string, TrafficReading>();
  const { service } = options;
  const ids = plan.changes.flatMap((c) => (c.kind === 'delete' ? [c.id] : []));
  if (settings.windowDays === 0 || ids.length === 0) return traffic;
  const read = service.readTraffic?.bind(service) as WebsiteService['readTraffic'];
  if (!read) return traffic;
  const limit = service.limit ?? pLimit(Math.max(1, options.concurrency));
  const window = { days: settings.windowDays, now: (options.now ?? Date.now)() };
  await Promise.all(ids.map((id) => limit(async () => traffic.set(String(id), await read(id, window)))));
  return traffic;
}

export interface GuardFacts {
  settings: TrafficGuardSettings;
  traffic: ReadonlyMap<string, TrafficReading>;
  limit: PlanLimit | undefined;
  force: boolean;
}

/** The plan with the traffic guard's refusals taken out, then the creates beyond the limit marked. */
export function guardPlan(plan: Plan, options: GuardOptions, facts: GuardFacts): Plan {
  const allowed = new Set((options.desired.allowDeleteWithTraffic ?? []).map(websiteKey));
  const guarded = guardTraffic(plan, { ...facts, allowed });
  return facts.limit ? fitCapacity(guarded, facts.limit) : guarded;
}
