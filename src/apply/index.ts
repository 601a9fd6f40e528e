export { type ApplyOptions, type ApplyResult, applyPlan, type Outcome, type OutcomeResult } from './apply.js';
