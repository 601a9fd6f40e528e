import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { type AttemptHooks, connectService, type RetryInfo } from '../service/index.js';
import { type Config, requireService } from './args.js';
import type { Io } from './io.js';
import { commandLogger } from './logger.js';
import { VERSION } from './version.js';

/** The service client every command that talks to the service builds from its options, checked first. */
export function connectFromConfig(
  config: Config,
  io: Io,
  options: { hooks?: AttemptHooks; logger?: Logger } = {},
) {
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
    hooks: {
      ...options.hooks,
      onRetry: logRetry(options.logger ?? commandLogger(config, io.redactor, true)),
    },
  });
  // Fingerprints are keyed with a secret derived from the key, so a state file or saved plan alone
  // reveals nothing; the key itself goes no further than the transport.
  const secret = createHash('sha256').update(`websites-sync\0${apiKey}`).digest('base64url');
  return { baseUrl, secret, ...client };
}

/** Seconds of waiting for a retry are never silent: one warn line with the reason and the wait. */
function logRetry(logger: Logger): (info: RetryInfo) => void {
  return ({ method, path, reason, retry, delayMs }) => {
    const route = path.split('?')[0];
    logger.warn(
      { stage: 'service', method, path, reason, retry, delayMs },
      `${method} ${route}: ${reason}; retry ${retry} in ${(delayMs / 1000).toFixed(1)}s`,
    );
  };
}
