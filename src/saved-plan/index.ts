// The saved-plan stage: `--out` writes a plan with what it was computed from, `--plan` applies exactly
// that plan if nothing it depends on changed. Pure except file.ts.
export { buildSavedPlan, newSalt, type SaveInput } from './build.js';
export {
  type StaleContext,
  staleReasons,
  type TargetContext,
  targetMismatch,
  unreadReasons,
} from './check.js';
export {
  type ReadSavedPlan,
  readSavedPlan,
  SAVED_PLAN_FILE,
  SavedPlanMasked,
  writeSavedPlan,
} from './file.js';
export { recordHash } from './fingerprint.js';
export {
  parseSavedPlan,
  SAVED_PLAN_VERSION,
  type SavedOperation,
  type SavedPlanFile,
  type SavedPlanMeta,
} from './format.js';
export { planFromSaved } from './rebuild.js';
export { signatureMismatch } from './signature.js';
