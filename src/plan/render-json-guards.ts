import type { PlanLimit, TrafficReading, WebsiteId } from '../model/index.js';
import type { Capacity, Change, DeleteTraffic, Plan } from './types.js';

// The guards in the JSON plan (README "JSON plan format"): each delete's traffic, the deletes the
// traffic guard refused, the account's plan limit and the creates that do not fit. Added keys only.

export interface JsonTraffic {
  /** Visitors over the window; null when they could not be read. */
  visitors: number | null;
  window_days: number;
  /** Why the traffic is unknown. */
  unknown_reason?: string;
  /** What let the delete through despite visitors (or unknown traffic under `strict`). */
  allowed_by?: 'allow_delete_with_traffic' | '--force';
}

export interface JsonTrafficRefusal extends JsonTraffic {
  id: WebsiteId;
  domain: string;
}

export interface JsonCapacity {
  /** The most websites the plan allows; null when unlimited or unknown. */
  limit: number | null;
  unlimited: boolean;
  known: boolean;
  unknown_reason?: string;
  now: number;
  after: number;
  /** Creates beyond the limit: not sent. */
  unfit: number;
}

export interface JsonGuards {
  /** The traffic guard's window, when it ran. */
  traffic_window_days?: number;
  traffic_refused: JsonTrafficRefusal[];
  capacity?: JsonCapacity;
}

function jsonTraffic(traffic: TrafficReading | DeleteTraffic, windowDays: number): JsonTraffic {
  const known = traffic.kind === 'known';
  return {
    visitors: known ? traffic.visitors : null,
    window_days: windowDays,
    ...(known ? {} : { unknown_reason: traffic.reason }),
    ...('allowedBy' in traffic && traffic.allowedBy ? { allowed_by: traffic.allowedBy } : {}),
  };
}

function jsonLimit(limit: PlanLimit): Pick<JsonCapacity, 'limit' | 'unlimited' | 'known' | 'unknown_reason'> {
  if (limit.kind === 'limited') return { limit: limit.websites, unlimited: false, known: true };
  if (limit.kind === 'unlimited') return { limit: null, unlimited: true, known: true };
  return { limit: null, unlimited: false, known: false, unknown_reason: limit.reason };
}

function jsonCapacity(capacity: Capacity): JsonCapacity {
  const { now, after, unfit } = capacity;
  return { ...jsonLimit(capacity.limit), now, after, unfit };
}

export function jsonGuards(plan: Plan): JsonGuards {
  const days = plan.trafficWindowDays;
  return {
    ...(days === undefined ? {} : { traffic_window_days: days }),
    traffic_refused: plan.trafficRefused.map(({ id, domain, traffic }) => ({
      id,
      domain,
      ...jsonTraffic(traffic, days ?? 0),
    })),
    ...(plan.capacity ? { capacity: jsonCapacity(plan.capacity) } : {}),
  };
}

/** A change's guard keys: a delete's `traffic`, a create's `unfit`. */
export function jsonChangeGuards(
  change: Change,
  windowDays: number | undefined,
): { traffic?: JsonTraffic; unfit?: true } {
  if (change.kind === 'delete' && change.traffic && windowDays !== undefined) {
    return { traffic: jsonTraffic(change.traffic, windowDays) };
  }
  if (change.kind === 'create' && change.unfit) return { unfit: true };
  return {};
}
