import { createHash } from 'node:crypto';
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
  // Fingerprints are keyed with a secret derived from the key, so a state file or saved plan alone
  // reveals nothing; the key itself goes no further than the transport.
  const secret = createHash('sha256').update(`websites-sync\0${apiKey}`).digest('base64url');
  return { baseUrl, secret, ...client };
}
