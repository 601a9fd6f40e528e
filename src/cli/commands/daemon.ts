import type { Logger } from 'pino';
import {
  ConditionLog,
  Daemon,
  DaemonMetrics,
  type KeyFileOptions,
  keyAdvice,
  type LaunchOptions,
  type ListenAddress,
  launchDaemon,
  parseListen,
} from '../../daemon/index.js';
import type { Config } from '../args.js';
import { connectFromConfig } from '../connect.js';
import { type DaemonNotifier, daemonNotifier } from '../daemon-notifier.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { commandLogger } from '../logger.js';
import { usesTls } from '../service-config.js';
import { openStoreFromConfig } from '../state-store.js';
import { setRunOptions } from '../v8-options.js';

/**
 * The default mode: reconcile at start, on every manifest change, every --interval and on SIGHUP,
 * until SIGTERM/SIGINT. With --dry-run it is observe mode: every plan is logged, nothing is changed.
 */
export async function runDaemon(config: Config, io: Io): Promise<number> {
  refuseOneShotOptions(config);
  setRunOptions(usesTls(config.baseUrl, io.env));
  const listen = listenAddress(config.listen, config.sources.listen);
  const metrics = new DaemonMetrics();
  const logger = commandLogger(config, io, false);
  const { client, periodic, keyFile, close, conditions } = connectDaemon(config, io, metrics, logger);
  const { baseUrl, secret } = client;
  // Before the first run: an unreachable or unusable state stops the start, naming why.
  const store = await openStoreFromConfig(config, io, { baseUrl, logger, heartbeatMs: config.leaderPollMs });
  const notifying = await daemonNotifier(config, io, logger, store);
  const notifier = notifying?.notifier;
  let code: number = EXIT.error;
  try {
    const options: LaunchOptions = {
      manifest: config.manifest,
      env: io.env,
      service: client.service,
      ...(keyFile ? { keyFile } : {}),
      store,
      leaderPollMs: config.leaderPollMs,
      baseUrl,
      secret,
      previousSecrets: client.previousSecrets,
      // The daemon never adopts (--adopt is for one --once run).
      ...config.run,
      intervalMs: config.intervalMs,
      logger,
      conditions,
      redactor: io.redactor,
      ...(notifier ? { notifier } : {}),
      metrics,
      rateBudget: { budget: client.budget, periodic },
      listen,
      // Caught since the process started; one that came before the daemon was ready is acted on now.
      ...(io.signals ? { signals: io.signals } : {}),
    };
    code = await (await start(options, notifying, config)).done;
    // Shut down: a signal during the last deliveries ends the process at once, as Node's default would.
    await io.signals?.release();
    await notifier?.flush();
    await notifying?.settled();
  } finally {
    await store.close();
    if (code === EXIT.ok) await close();
    else {
      void close();
      // Requests abandoned after the grace period would hold the process open until they time out.
      setTimeout(() => process.exit(code), 1000).unref();
    }
    logger.flush();
  }
  return code;
}

/**
 * The first client, whose retries are said through the daemon's conditions, and with `--api-key-file`
 * how the daemon gets one for a new key it reads there (the one before is closed: no run uses it any
 * more); `close` closes the one in use.
 */
function connectDaemon(config: Config, io: Io, metrics: DaemonMetrics, logger: Logger) {
  // Periodic resyncs leave half of the key's limit to its other users unless --rate-budget says otherwise.
  const periodic = config.rateBudget ?? 0.5;
  // One for the client's retries and the daemon's runs: an outage is said once, not at every resync.
  const conditions = new ConditionLog();
  const file = config.apiKeyFile
    ? { path: config.apiKeyFile, source: config.sources['api-key-file'] }
    : undefined;
  const client = connectFromConfig(config, io, {
    hooks: metrics.hooks,
    logger,
    budget: periodic,
    conditions,
    keyAdvice: keyAdvice(file),
  });
  metrics.watchRate(client.budget);
  let current: { close: () => Promise<void> } = client;
  const close = () => current.close();
  const common = { client, periodic, close, conditions };
  if (!file) return { ...common, keyFile: undefined };
  const reconnect = (apiKey: string) => {
    const next = client.connect(apiKey);
    void current.close();
    current = next;
    return next;
  };
  const keyFile: KeyFileOptions = { ...file, apiKey: client.apiKey, reconnect };
  return { ...common, keyFile };
}

/** The daemon, built first so that its becoming the leader is heard from the first time, started. */
function start(options: LaunchOptions, notifying: DaemonNotifier | undefined, config: Config) {
  const daemon = new Daemon(options);
  notifying?.follow(daemon);
  return launchDaemon(options, daemon).catch(explainListenFailure(config.listen, config.sources.listen));
}

function refuseOneShotOptions(config: Config): void {
  const given = [
    config.plan !== undefined && '--plan',
    config.out !== undefined && '--out',
    config.detailedExitcode && '--detailed-exitcode',
  ].filter(Boolean);
  if (given.length > 0) {
    throw new UsageError(`${given.join(', ')}: only with --once; the daemon computes a fresh plan every run`);
  }
}

/** `source`: `--listen` or WEBSITES_SYNC_LISTEN, whichever gave the address. */
function listenAddress(text: string | undefined, source: string): ListenAddress | undefined {
  if (text === undefined) return undefined;
  const address = parseListen(text);
  if (!address) {
    throw new UsageError(`${source}: "${text}" is not HOST:PORT; use e.g. 0.0.0.0:9090 or 127.0.0.1:9090`);
  }
  return address;
}

function explainListenFailure(listen: string | undefined, source: string): (error: unknown) => never {
  return (error) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (listen !== undefined && (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')) {
      throw new UsageError(`${source}: cannot listen on ${listen} (${code}); choose another address or port`);
    }
    throw error;
  };
}
