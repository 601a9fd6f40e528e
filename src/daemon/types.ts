// The daemon's settings and what it reports, apart from the class so the health server and the launcher
// can name them without importing the daemon.
import type { Logger } from 'pino';
import type { Outcome } from '../apply/index.js';
import type { Redactor } from '../model/index.js';
import type { Notifier } from '../notify/index.js';
import type { PlanSummary } from '../plan/index.js';
import type { RunSettings } from '../reconcile/index.js';
import type { RateBudget, WebsiteService } from '../service/index.js';
import type { StateStore } from '../state/index.js';
import type { ConditionLog } from './condition-log.js';
import type { KeyFileOptions } from './key-file.js';
import type { DaemonMetrics, RunResult } from './metrics.js';
import type { Timers, Trigger } from './scheduler.js';

/**
 * The run's settings as reconcile takes them (`prune: true` in the manifest also allows deletes; with
 * `dryRun` the daemon is in observe mode: every run logs its plan and changes nothing), and what only
 * the daemon needs. The daemon never adopts: `--adopt` is for one `--once` run.
 */
export interface DaemonOptions extends Omit<RunSettings, 'adopt'> {
  manifest: string;
  /** For `${NAME}` interpolation in the manifest. */
  env: NodeJS.ProcessEnv;
  service: WebsiteService;
  /**
   * The key came from this file (`--api-key-file`): read again before a run once the service refused
   * the key, or when it changed; a new key gets a new client. Without it the key cannot change.
   */
  keyFile?: KeyFileOptions;
  /** The state (a file, or PostgreSQL shared by replicas that elect one leader), opened at start-up. */
  store: StateStore;
  /** A standby's tries to take over (default 5 s): the longest a failover waits after the leader is gone. */
  leaderPollMs?: number;
  baseUrl: string;
  /** Keys fingerprints (derived from the API key). */
  secret: string;
  /**
   * `--previous-api-key-file`: the secrets of keys used before a rotation; fingerprints made with them
   * are recognised. A key the daemon replaces (`keyFile`) joins them for the life of the process.
   */
  previousSecrets?: readonly string[];
  intervalMs: number;
  /** Quiet time after a file event before the manifest is looked at (default 300 ms). */
  debounceMs?: number;
  logger: Logger;
  /** Learns the passwords of every manifest that comes into force (see Redactor). */
  redactor?: Redactor;
  /** `--notify-url`: drift corrected or observed, failures, refusals, scheduled deletes, manifest validity. */
  notifier?: Notifier;
  metrics?: DaemonMetrics;
  /**
   * `--rate-budget`: the reads of periodic resyncs (and the first run) use `periodic` of the key's
   * limit; a run the operator asked for (a manifest change, SIGHUP) and every apply use all of it.
   */
  rateBudget?: { budget: RateBudget; periodic: number };
  timers?: Timers;
  /**
   * Says what every resync meets again once while it stands (daemon/condition-log.ts); give the same
   * one to the service client's retry log (its hooks), so that an outage is said once too.
   */
  conditions?: ConditionLog;
  /** Milliseconds since the epoch (durations and the last-success timestamp). */
  now?: () => number;
}

export interface RunReport {
  /** 1 for the first run of this daemon. */
  run: number;
  triggers: Trigger[];
  result: RunResult;
  durationMs: number;
  /** Absent when no plan was computed. */
  summary?: PlanSummary;
  outcomes: Outcome[];
  /** Why the run did not succeed, in a few words. */
  reason?: string;
}

export interface Readiness {
  ready: boolean;
  reason: string;
  /** Another replica leads: this one stands by (ready to take over). */
  standby?: boolean;
}

export interface DaemonEvents {
  'run-started': [{ run: number; triggers: Trigger[] }];
  'run-finished': [RunReport];
  /** A run ended and no other one is pending. */
  idle: [];
  /** This daemon leads (lists, plans, writes), or stands by while another one leads. */
  leading: [];
  standby: [];
}
