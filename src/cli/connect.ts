import { type AttemptHooks, connectService } from '../service/index.js';
import { type Config, requireService } from './args.js';
import { VERSION } from './version.js';

/** The service client every command that talks to the service builds from its options, checked first. */
export function connectFromConfig(config: Config, hooks?: AttemptHooks) {
  const { baseUrl, apiKey } = requireService(config);
  const client = connectService({
    baseUrl,
    apiKey,
    version: VERSION,
    timeoutMs: config.timeoutMs,
    concurrency: config.concurrency,
    hooks,
  });
  return { baseUrl, ...client };
}
