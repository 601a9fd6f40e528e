// The reconcile stage's door: one pass of the pipeline, used by the one-shot CLI and the daemon.
export { type ReconcileOptions, type ReconcileResult, reconcile } from './reconcile.js';
