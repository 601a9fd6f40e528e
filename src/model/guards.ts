// What the service tells about an account's limits and a website's life, as the plan's guards take it:
// plain data, read by the service stage, so the plan stays pure and its guards are tested without HTTP.

/** The most websites the account's plan allows (`/api/v1/account`, `plan.features.websites`). */
export type PlanLimit =
  | { kind: 'limited'; websites: number }
  /** `-1`: no limit. */
  | { kind: 'unlimited' }
  /** Not answered or not readable (an older service, a proxy that blocks it): nothing is assumed. */
  | { kind: 'unknown'; reason: string };

/** A website's visitors over the traffic window (`/api/v1/stats/{id}?name=visitors`). */
export type TrafficReading =
  | { kind: 'known'; visitors: number }
  /**
   * The answer could not be read: never taken as "no traffic". `transient`: no answer came, or only
   * answers that say "not now" (429, a gateway's 502/503/504) after the retries: a passing failure,
   * not a service that cannot tell, so the delete is held back whatever `traffic_guard` says.
   */
  | { kind: 'unknown'; reason: string; transient?: true };

/** The traffic guard's settings: `traffic_window` / `--traffic-window` and `traffic_guard` / `--traffic-guard`. */
export interface TrafficGuardSettings {
  /** Days of traffic read before a delete; 0 turns the guard off. */
  windowDays: number;
  /** `lenient` (default): unknown traffic does not block a delete; `strict`: it does. */
  mode: TrafficGuardMode;
}

export const TRAFFIC_GUARD_MODES = ['lenient', 'strict'] as const;
export type TrafficGuardMode = (typeof TRAFFIC_GUARD_MODES)[number];

/** The default window, and the longest: its dates fit one page of the stats endpoint (100 rows). */
export const TRAFFIC_WINDOW_DEFAULT_DAYS = 30;
export const TRAFFIC_WINDOW_MAX_DAYS = 90;
