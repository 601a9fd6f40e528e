// The daemon stage: decides when the pipeline runs (start, manifest change, interval, SIGHUP), keeps the
// last good manifest in force, and serves health and metrics. It never reaches inside a stage.
export { ConditionLog } from './condition-log.js';
export { Daemon } from './daemon.js';
export { type HealthServer, type ListenAddress, parseListen, startHealthServer } from './health.js';
export { type KeyFileOptions, keyAdvice, type ServiceConnection } from './key-file.js';
export { type DaemonHandle, DEFAULT_GRACE_MS, type LaunchOptions, launchDaemon } from './launch.js';
export { DaemonMetrics, type DaemonMetricsOptions, RUN_RESULTS, type RunResult } from './metrics.js';
export { realTimers, Scheduler, type Timers, type Trigger } from './scheduler.js';
export { bindSignals, type SignalSource } from './signals.js';
export type { DaemonEvents, DaemonOptions, Readiness, RunReport } from './types.js';
export { ManifestWatcher } from './watch.js';
