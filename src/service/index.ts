// The service stage's door: the HTTP client of the website API as the other stages use it.

export {
  apiKeyProblem,
  type KeyFileRead,
  readApiKeyFile,
} from './api-key.js';
export type { AttemptHooks, AttemptInfo, RateWindowInfo, RetryInfo } from './attempt-types.js';
export { RateBudget } from './budget.js';
export type { ListingDecisions, WebsiteService } from './client.js';
export { type ConnectionSettings, type ConnectOptions, connectService } from './connect.js';
export { AuthError, KeyRevokedError, ServiceError } from './errors.js';
export { ACCOUNT_PATH, STATS_PATH, type TrafficWindow } from './guard-reads.js';
export type { KeyRefusal } from './key-watch.js';
export { lookupFailed } from './lookup-after.js';
export { type EnvProxy, proxyFromEnv } from './proxy.js';
export { KNOWN_STATUS_CODES, type RetryTuning } from './retry-policy.js';
export { NotSentError } from './stop.js';
