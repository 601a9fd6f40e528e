import type { Logger } from 'pino';
import { Daemon } from './daemon.js';
import { type HealthServer, type ListenAddress, startHealthServer } from './health.js';
import type { DaemonMetrics } from './metrics.js';
import { bindSignals, type SignalSource } from './signals.js';
import type { DaemonOptions } from './types.js';

// The daemon as a process runs it: health server, signal handlers, and a shutdown that lets in-flight
// work finish within a bounded grace period (Kubernetes sends SIGKILL 30 s after SIGTERM by default).

export const DEFAULT_GRACE_MS = 25_000;

export interface LaunchOptions extends DaemonOptions {
  metrics: DaemonMetrics;
  /** Serve /healthz, /readyz and /metrics here. */
  listen?: ListenAddress;
  /** Default `process`. */
  signals?: SignalSource;
  /** How long a shutdown waits for the run in progress (default 25 s). */
  graceMs?: number;
}

export interface DaemonHandle {
  daemon: Daemon;
  health: HealthServer | undefined;
  /** Resolves with the exit status once shut down: 0, or 1 when the grace period ran out. */
  done: Promise<number>;
  /** What SIGTERM does; the same promise as `done`. */
  shutdown(reason?: string): Promise<number>;
}

/** Starts the daemon; pass one built from the same options to listen to its events from the first run. */
export async function launchDaemon(
  options: LaunchOptions,
  daemon: Daemon = new Daemon(options),
): Promise<DaemonHandle> {
  const health = options.listen
    ? await startHealthServer({
        address: options.listen,
        readiness: () => daemon.readiness(),
        registry: options.metrics.registry,
        logger: options.logger,
      })
    : undefined;
  const parts: Parts = {
    daemon,
    health,
    logger: options.logger.child({ stage: 'daemon' }),
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    unbind: () => {},
  };
  let finished: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finished = resolve;
  });
  // A second SIGTERM while stopping joins the shutdown in progress.
  let stopping: Promise<number> | undefined;
  const shutdown = (reason = 'requested'): Promise<number> => {
    if (!stopping) {
      stopping = stopAll(parts, reason);
      stopping.then(finished, () => finished(1));
    }
    return stopping;
  };
  try {
    await daemon.start();
  } catch (error) {
    await shutdown('start failed');
    throw error;
  }
  // Once the daemon is ready (its first run under way): a signal the source held until now, a SIGHUP
  // before the daemon was ready, comes now and asks for a resync after the first run.
  parts.unbind = bindSignals(options.signals ?? process, {
    reload: () => {
      parts.logger.info({ signal: 'SIGHUP' }, 'run requested');
      daemon.trigger('signal');
    },
    shutdown: (signal) => void shutdown(signal),
  });
  return { daemon, health, done, shutdown };
}

interface Parts {
  daemon: Daemon;
  health: HealthServer | undefined;
  logger: Logger;
  graceMs: number;
  unbind: () => void;
}

/**
 * Every wait of the run in progress ends at once (service/stop.ts): the shutdown waits only for the
 * requests really in flight, and the log says how many there are, at the start and at the end.
 */
async function stopAll(parts: Parts, reason: string): Promise<number> {
  const { logger, graceMs, daemon } = parts;
  const busy = daemon.busy;
  const inFlight = daemon.inFlight;
  logger.info({ reason, graceMs, runInProgress: busy, inFlight }, shuttingDown(busy, inFlight, graceMs));
  const graceful = await daemon.stop(graceMs);
  await parts.health?.close();
  parts.unbind();
  if (!graceful) {
    const left = daemon.inFlight;
    logger.error(
      { graceMs, inFlight: left },
      left > 0
        ? `grace period over: ${requests(left)} still in flight abandoned; write-only fields they carried will be resent next time`
        : 'grace period over: the run in progress did not finish, though no request was in flight; its state may be incomplete',
    );
    return 1;
  }
  logger.info('stopped');
  return 0;
}

function shuttingDown(busy: boolean, inFlight: number, graceMs: number): string {
  if (!busy) return 'shutting down: no run in progress';
  const waiting =
    inFlight > 0
      ? `waiting at most ${graceMs / 1000}s for the ${requests(inFlight)} in flight`
      : 'no request in flight: the run in progress ends now';
  return `shutting down: no new run or operation starts; ${waiting}`;
}

function requests(count: number): string {
  return count === 1 ? '1 request' : `${count} requests`;
}
