import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { type ConditionSink, formatDuration, sayCondition } from '../model/index.js';
import {
  type AttemptHooks,
  connectService,
  RateBudget,
  type RateWindowInfo,
  type RetryInfo,
} from '../service/index.js';
import type { Config } from './args.js';
import type { Io } from './io.js';
import { commandLogger } from './logger.js';
import { checkProxyEnv, previousApiKeyOf, requireService, usesTls } from './service-config.js';
import { setRunOptions } from './v8-options.js';
import { VERSION } from './version.js';

/** The service client every command that talks to the service builds from its options, checked first. */
export function connectFromConfig(
  config: Config,
  io: Io,
  options: {
    hooks?: AttemptHooks;
    logger?: Logger;
    budget?: number;
    conditions?: ConditionSink;
    keyAdvice?: string;
  } = {},
) {
  const { baseUrl, apiKey, notice } = requireService(config);
  const previous = previousApiKeyOf(config);
  setRunOptions(usesTls(baseUrl, io.env));
  checkProxyEnv(io.env, baseUrl);
  for (const said of [notice, previous.notice]) if (said) io.stderr.write(`websites-sync: ${said}\n`);
  // The key before a rotation is never sent: only fingerprints recorded with it are recognised.
  if (previous.previousApiKey) io.redactor.add(previous.previousApiKey);
  const previousSecrets = previous.previousApiKey ? [secretOf(previous.previousApiKey)] : [];
  const logger = options.logger ?? commandLogger(config, io, true);
  // `--rate-budget` for the reads; a run that applies changes switches to the whole limit.
  const budget = new RateBudget({ fraction: options.budget ?? 1, windowMs: config.rateWindowMs });
  /** A client for `key`: the first one, or one for a new key the daemon read from the key file. */
  const connect = (key: string) => {
    io.redactor.add(key);
    const client = connectService({
      baseUrl,
      apiKey: key,
      version: VERSION,
      ...config.connection,
      budget,
      redact: (text) => io.redactor.redact(text),
      hooks: {
        ...options.hooks,
        onRetry: logRetry(logger, options.conditions),
        onRateWindow: logRateWindow(logger),
      },
      ...(options.keyAdvice ? { keyAdvice: options.keyAdvice } : {}),
    });
    // Fingerprints are keyed with a secret derived from the key, so a state file or saved plan alone
    // reveals nothing; the key itself goes no further than the transport.
    return { secret: secretOf(key), ...client };
  };
  return { baseUrl, budget, apiKey, previousSecrets, connect, ...connect(apiKey) };
}

/** The secret fingerprints are keyed with (see fingerprintKey), derived from an API key. */
function secretOf(key: string): string {
  return createHash('sha256').update(`websites-sync\0${key}`).digest('base64url');
}

/**
 * Seconds of waiting for a retry are never silent: one warn line with the reason and the wait. A
 * daemon's (`conditions`) says each retry once while the service keeps failing so, not again at every
 * resync, and says when the service answers again.
 */
export function logRetry(logger: Logger, conditions?: ConditionSink): (info: RetryInfo) => void {
  return ({ method, path, reason, retry, delayMs }) => {
    const route = path.split('?')[0];
    sayCondition(conditions, logger, {
      key: `retry:${method} ${route}:${reason}:${retry}`,
      level: 'warn',
      fields: { stage: 'service', method, path, reason, retry, delayMs },
      message: `${method} ${route}: ${reason}; retry ${retry} in ${(delayMs / 1000).toFixed(1)}s`,
      ended: 'service reachable again: a resync made no retry',
    });
  };
}

/** The window is not announced; when the answers contradict --rate-window, the operator hears of it. */
function logRateWindow(logger: Logger): (info: RateWindowInfo) => void {
  return ({ configuredMs, observedMs }) => {
    logger.warn(
      { stage: 'service', configuredMs, observedMs },
      `the service's rate-limit window looks like ${formatDuration(observedMs)}, not ${formatDuration(configuredMs)}: set --rate-window (WEBSITES_SYNC_RATE_WINDOW) to match`,
    );
  };
}
