export { changesOf, computePlan, type PlanInput } from './compute.js';
export { checkDeleteGuard } from './guard.js';
export { websiteKey } from './identity.js';
export { FORMAT_VERSION, type JsonPlan, toJsonPlan } from './render-json.js';
export { renderText, summaryLine } from './render-text.js';
export * from './types.js';
