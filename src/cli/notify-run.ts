import type { Logger } from 'pino';
import { eventsOfRun, Notifier } from '../notify/index.js';
import { factsOfRun, type ReconcileResult } from '../reconcile/index.js';
import type { Notified, StateStore } from '../state/index.js';
import type { Config } from './args.js';
import type { Io } from './io.js';

/**
 * `--notify-url`: the run's events, sent before the exit (bounded: a timeout and a few tries). What was
 * delivered is kept by the state's store (beside a state file, in a PostgreSQL schema), so the next run
 * does not tell the same again; a dry run keeps nothing. Neither a read nor a write of that memory
 * fails a run: at worst the next one tells again.
 */
export async function notifyRun(
  config: Config,
  io: Io,
  logger: Logger,
  result: ReconcileResult,
  store: StateStore,
): Promise<void> {
  if (!config.notifyUrl) return;
  const kept = keptNotifications(store, logger);
  const notifier = new Notifier({
    url: config.notifyUrl,
    logger,
    redact: (json) => io.redactor.showJson(json),
    sent: (await kept.read()) ?? {},
  });
  notifier.notifyRun(eventsOfRun(factsOfRun(result, { resync: false, dryRun: config.dryRun })));
  await notifier.flush();
  if (config.dryRun) return;
  await kept.write(notifier.sent());
}

/**
 * The state store's memory of what was delivered (`--once`'s and the daemon's), its failures warned
 * about and never thrown: at worst a situation is told again.
 */
export function keptNotifications(store: StateStore, logger: Logger) {
  const unremembered = (error: Error) => {
    logger.warn({ stage: 'notify', state: store.shown, err: error.message }, 'cannot remember what was sent');
  };
  return {
    /** Undefined when it cannot be read. */
    read: (): Promise<Notified | undefined> =>
      store.readNotified().catch((error: Error) => {
        unremembered(error);
        return undefined;
      }),
    write: (sent: Notified): Promise<void> => store.writeNotified(sent).catch(unremembered),
  };
}
