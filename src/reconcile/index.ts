// The reconcile stage's door: one pass of the pipeline, used by the one-shot CLI and the daemon, and
// the one classification of how a run ended.
export { EXIT_STATUSES, type ExitCode, type ExitStatus } from './exit-status.js';
export { Interrupted } from './interrupted.js';
export {
  classifyRun,
  factsOfRun,
  type OutcomeSummary,
  type RunOutcome,
  type RunResultLabel,
  summariseOutcome,
} from './outcome.js';
export {
  type ReconcileOptions,
  type ReconcileResult,
  type RunSettings,
  reconcile,
} from './reconcile.js';
