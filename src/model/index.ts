// The kernel every stage may import: the shared vocabulary (model types), which website a domain is
// (identity), and whether two values are the same (equality). Two rules for one idea is how a
// protected website gets deleted, so every stage uses these and none has its own.

export { type Condition, type ConditionSink, sayCondition } from './condition.js';
export { formatCount } from './count.js';
export { type CanonicalDomainResult, canonicalDomain } from './domain.js';
export { DELETE_DELAY_RANGE, formatBound, formatDuration, parseDurationMs } from './duration.js';
export { canonicalIp, sameValue } from './equality.js';
export * from './guards.js';
export { compareIds, compareText, storedKey, websiteKey } from './identity.js';
export { canonicalPattern, compileIgnore, type IgnoreRules, patternSpellingError } from './ignore.js';
export { isLoopbackHost } from './loopback.js';
export { mapStrings } from './map-strings.js';
export { type ListedName, matchWebsites, type WebsiteMatches } from './matching.js';
export {
  anyUnlisted,
  capProblems,
  MAX_LISTED_PROBLEMS,
  NONE_UNLISTED,
  type Unlisted,
  unlistedLine,
} from './problems.js';
export { MIN_SECRET_LENGTH, REDACTED, Redactor } from './redact.js';
export { cannotRead, readSmallFile, type SmallFileRead, type SmallFileSpec } from './regular-file.js';
export { serviceAcceptsDomain, serviceStoredDomain } from './service-domain.js';
export {
  colored,
  hasControls,
  jsonDocument,
  oneLine,
  oneLineValue,
  ownText,
  shownJson,
  shownText,
  shownValue,
  terminalText,
} from './shown-text.js';
export { shownUrl } from './shown-url.js';
export { editDistance, suggest } from './suggest.js';
export * from './types.js';
export {
  notRegular,
  notRegularMessage,
  notRegularRefusal,
  readWholeFile,
  readWholeFileSync,
  tooLargeMessage,
  type WholeFileSpec,
  type WholeRead,
  wholeReadRefusal,
} from './whole-file.js';
