import type { Logger } from 'pino';
import type { Daemon } from '../daemon/index.js';
import { Notifier } from '../notify/index.js';
import type { StateStore } from '../state/index.js';
import type { Config } from './args.js';
import type { Io } from './io.js';
import { keptNotifications } from './notify-run.js';

/**
 * The daemon's `--notify-url`, its memory of what was delivered kept by the state's store as `--once`
 * keeps it: read at start and whenever this daemon becomes the leader (a standby taking over knows what
 * the last leader told), written after each change. So a restart, a rollout or a failover does not tell
 * a standing situation again. Observe mode keeps nothing, as a dry run does. A memory that cannot be
 * read or written only means a situation may be told again.
 */
export interface DaemonNotifier {
  notifier: Notifier;
  /** Reads the memory again each time `daemon` becomes the leader. */
  follow(daemon: Daemon): void;
  /** Waits for the writes on their way (before the store is closed). */
  settled(): Promise<void>;
}

export async function daemonNotifier(
  config: Config,
  io: Io,
  logger: Logger,
  store: StateStore,
): Promise<DaemonNotifier | undefined> {
  if (config.notifyUrl === undefined) return undefined;
  const redact = (json: string) => io.redactor.showJson(json);
  if (config.dryRun) {
    const notifier = new Notifier({ url: config.notifyUrl, logger, redact });
    return { notifier, follow: () => {}, settled: async () => {} };
  }
  const kept = keptNotifications(store, logger);
  let writing = Promise.resolve();
  // Written only while this daemon leads (and as it shuts down): once another leads, what this one
  // knows is older than what the leader writes.
  let leading = false;
  const notifier = new Notifier({
    url: config.notifyUrl,
    logger,
    redact,
    sent: (await kept.read()) ?? {},
    onMemory: (sent) => {
      if (leading) writing = writing.then(() => kept.write(sent));
    },
  });
  // After the writes on their way; an unreadable memory leaves what this knows.
  const reread = () => writing.then(kept.read);
  return {
    notifier,
    follow: (daemon) => {
      daemon.on('leading', () => {
        leading = true;
        notifier.remember(reread);
      });
      daemon.on('standby', () => {
        leading = false;
      });
    },
    settled: () => writing,
  };
}
