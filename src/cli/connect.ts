import { connect } from '../reconcile/connect.js';
import type { AttemptHooks } from '../service/http.js';
import { type Config, requireService } from './args.js';
import { VERSION } from './version.js';

/** The service client every command that talks to the service builds from its options, checked first. */
export function connectFromConfig(config: Config, hooks?: AttemptHooks) {
  const { baseUrl, apiKey } = requireService(config);
  const client = connect({
    baseUrl,
    apiKey,
    version: VERSION,
    timeoutMs: config.timeoutMs,
    concurrency: config.concurrency,
    hooks,
  });
  return { baseUrl, ...client };
}
