export { capacityText, fitCapacity, unfitText } from './capacity.js';
export { changesOf, computePlan, type PlanInput } from './compute.js';
export { checkDeleteGuard, checkDoubtfulDeletes, type DoubtfulProtections } from './guard.js';
export { dueDeletes, noStateWarning } from './lifecycle.js';
export { type Block, bulletList } from './markdown-fit.js';
export {
  FORMAT_VERSION,
  fromJsonField,
  type JsonChange,
  type JsonField,
  type JsonPlan,
  type PlanOrigin,
  toJsonPlan,
} from './render-json.js';
export {
  COMMENT_LIMIT,
  codeSpan,
  escapeMarkdown,
  type MarkdownOptions,
  RISK_MARK,
  renderMarkdown,
} from './render-markdown.js';
export { renderText, summaryLine } from './render-text.js';
export {
  deleteTrafficNote,
  guardTraffic,
  refusalText,
  type TrafficGuardInput,
  trafficText,
} from './traffic-guard.js';
export * from './types.js';
