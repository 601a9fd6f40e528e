export {
  type ApplyOptions,
  type ApplyResult,
  applyPlan,
  OPERATION_RESULTS,
  type Outcome,
  type OutcomeResult,
} from './apply.js';
