import { createHash } from 'node:crypto';
import { type AttemptHooks, connectService } from '../service/index.js';
import { type Config, requireService } from './args.js';
import type { Io } from './io.js';
import { VERSION } from './version.js';

/** The service client every command that talks to the service builds from its options, checked first. */
export function connectFromConfig(config: Config, io: Io, hooks?: AttemptHooks) {
  const { baseUrl, apiKey, notice } = requireService(config);
  io.redactor.add(apiKey);
  if (notice) io.stderr.write(`websites-sync: ${notice}\n`);
  const client = connectService({
    baseUrl,
    apiKey,
    version: VERSION,
    timeoutMs: config.timeoutMs,
    rateWindowMs: config.rateWindowMs,
    concurrency: config.concurrency,
    hooks,
  });
  // Fingerprints are keyed with a secret derived from the key, so a state file or saved plan alone
  // reveals nothing; the key itself goes no further than the transport.
  const secret = createHash('sha256').update(`websites-sync\0${apiKey}`).digest('base64url');
  return { baseUrl, secret, ...client };
}
