import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { OPERATION_RESULTS, type Outcome } from '../apply/index.js';
import {
  type AttemptHooks,
  type AttemptInfo,
  KNOWN_STATUS_CODES,
  type RateBudget,
} from '../service/index.js';

// Prometheus metrics on a registry of our own (never prom-client's global one), so two daemons in one
// process — tests — never share counters.

/** How a run ended. `interrupted`: shutdown stopped it before every operation was attempted. */
export const RUN_RESULTS = ['success', 'failure', 'refused', 'invalid_manifest', 'interrupted'] as const;
export type RunResult = (typeof RUN_RESULTS)[number];

const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export interface RunMetrics {
  result: RunResult;
  durationSeconds: number;
  /** Milliseconds since the epoch. */
  finishedAt: number;
  outcomes: Outcome[];
  /** Websites listed in the manifest in force, when there is one. */
  managed?: number;
  /** What the run's plan held back, when it computed one. */
  heldBack?: { observed: number; pending_delete: number; protected: number; traffic_refused: number };
  /** Deletes a guard refused in this run: the traffic guard's apart from the mass-delete guard's. */
  refusedDeletes?: { traffic: number; mass_delete: number };
}

export interface DaemonMetricsOptions {
  /** Process metrics (CPU, memory, event loop, handles); default true. */
  defaultMetrics?: boolean;
}

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly #registers = [this.registry];
  readonly #runs = new Counter({
    name: 'websites_sync_runs_total',
    help: 'Reconcile runs by result.',
    labelNames: ['result'],
    registers: this.#registers,
  });
  readonly #operations = new Counter({
    name: 'websites_sync_operations_total',
    help: 'Create, update and delete operations by action and result.',
    labelNames: ['action', 'result'],
    registers: this.#registers,
  });
  readonly #requests = new Counter({
    name: 'websites_sync_api_requests_total',
    help: 'Requests to the website API by HTTP status (every attempt, retries included; "error" when no answer).',
    labelNames: ['status'],
    registers: this.#registers,
  });
  readonly #lastSuccess = new Gauge({
    name: 'websites_sync_last_success_timestamp_seconds',
    help: 'When the last successful run finished (Unix time); 0 before the first one.',
    registers: this.#registers,
  });
  readonly #duration = new Histogram({
    name: 'websites_sync_run_duration_seconds',
    help: 'Duration of reconcile runs.',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: this.#registers,
  });
  readonly #managed = new Gauge({
    name: 'websites_sync_websites_managed',
    help: 'Websites listed in the manifest in force.',
    registers: this.#registers,
  });
  readonly #manifestValid = new Gauge({
    name: 'websites_sync_manifest_valid',
    help: '1 when the manifest file is valid, 0 while it is not (the last good one stays in force).',
    registers: this.#registers,
  });
  readonly #leader = new Gauge({
    name: 'websites_sync_leader',
    help: '1 while this daemon leads (lists, plans and writes), 0 while it stands by for another replica (shared PostgreSQL state).',
    registers: this.#registers,
  });
  readonly #heldBack = new Gauge({
    name: 'websites_sync_websites_held_back',
    help: 'Per the last plan: observed websites with drift (observed), deletes waiting for delete_delay (pending_delete), deletes prevented by protect (protected), deletes refused by the traffic guard (traffic_refused).',
    labelNames: ['kind'],
    registers: this.#registers,
  });
  readonly #refusedDeletes = new Counter({
    name: 'websites_sync_deletes_refused_total',
    help: 'Deletes a guard refused: the traffic guard (the website had visitors; the rest of the plan went ahead) apart from the mass-delete guard (the whole plan refused). A delete held back is counted again at every resync: alert on websites_sync_websites_held_back, not on this rate.',
    labelNames: ['guard'],
    registers: this.#registers,
  });

  /** Counts every attempt by status (retries included); `error` when no HTTP answer came. */
  readonly hooks: AttemptHooks = {
    afterAttempt: (info: AttemptInfo) => this.#requests.inc({ status: statusLabel(info) }),
  };

  constructor(options: DaemonMetricsOptions = {}) {
    // Every series exists from the start, so `increase(...{result="failed"}[1h]) > 0` sees the first one.
    for (const result of RUN_RESULTS) this.#runs.inc({ result }, 0);
    for (const [action, results] of Object.entries(OPERATION_RESULTS)) {
      for (const result of results) this.#operations.inc({ action, result }, 0);
    }
    for (const status of [...KNOWN_STATUS_CODES.map(String), 'error']) this.#requests.inc({ status }, 0);
    for (const kind of ['observed', 'pending_delete', 'protected', 'traffic_refused']) {
      this.#heldBack.set({ kind }, 0);
    }
    for (const guard of ['traffic', 'mass_delete']) this.#refusedDeletes.inc({ guard }, 0);
    // prom-client samples event-loop lag every 10 ms by default, which alone wakes an idle daemon 100
    // times a second; 100 ms keeps the metric useful at a tenth of the cost.
    if (options.defaultMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
      // Gauges named `_total` fail `promtool check metrics` (only counters may end so); the same counts
      // stay available per type in nodejs_active_handles / _requests / _resources.
      for (const name of GAUGES_NAMED_LIKE_COUNTERS) this.registry.removeSingleMetric(name);
    }
  }

  recordRun(run: RunMetrics): void {
    this.#runs.inc({ result: run.result });
    this.#duration.observe(run.durationSeconds);
    for (const outcome of run.outcomes) {
      this.#operations.inc({ action: outcome.action, result: outcome.result });
    }
    if (run.result === 'success') this.#lastSuccess.set(run.finishedAt / 1000);
    if (run.managed !== undefined) this.#managed.set(run.managed);
    for (const [kind, count] of Object.entries(run.heldBack ?? {})) this.#heldBack.set({ kind }, count);
    for (const [guard, count] of Object.entries(run.refusedDeletes ?? {})) {
      this.#refusedDeletes.inc({ guard }, count);
    }
  }

  /** `--rate-budget` and the key's use, read at each scrape. */
  watchRate(rate: Pick<RateBudget, 'fraction' | 'limit' | 'used'>): void {
    const registers = this.#registers;
    new Gauge({
      name: 'websites_sync_rate_budget_ratio',
      help: 'Share of the API key rate limit the current phase may use (--rate-budget for periodic resyncs, 1 while applying).',
      registers,
      collect() {
        this.set(rate.fraction);
      },
    });
    new Gauge({
      name: 'websites_sync_rate_limit_requests',
      help: 'Requests per window the service allows the key (X-RateLimit-Limit; 0 until known).',
      registers,
      collect() {
        this.set(rate.limit ?? 0);
      },
    });
    new Gauge({
      name: 'websites_sync_rate_used_ratio',
      help: "This process's requests in the last rate-limit window, as a share of the key's limit.",
      registers,
      collect() {
        this.set(rate.used());
      },
    });
  }

  setLeader(leading: boolean): void {
    this.#leader.set(leading ? 1 : 0);
  }

  setManifestValid(valid: boolean): void {
    this.#manifestValid.set(valid ? 1 : 0);
  }
}

function statusLabel(info: AttemptInfo): string {
  return info.status === undefined ? 'error' : String(info.status);
}
