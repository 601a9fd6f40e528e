import type { Logger } from 'pino';
import { eventsOfRun, Notifier, readSent, sentPathFor, writeSent } from '../notify/index.js';
import { factsOfRun, type ReconcileResult } from '../reconcile/index.js';
import { isPostgresUrl } from '../state/index.js';
import type { Config } from './args.js';
import type { Io } from './io.js';

/**
 * `--notify-url`: the run's events, sent before the exit (bounded: a timeout and a few tries). What was
 * delivered is kept beside the state, so the next run does not tell the same again; a dry run keeps
 * nothing.
 */
export async function notifyRun(
  config: Config,
  io: Io,
  logger: Logger,
  result: ReconcileResult,
): Promise<void> {
  if (!config.notifyUrl) return;
  // Beside a state file; a shared state (PostgreSQL) keeps no memory of what was sent: every run tells.
  const memory = isPostgresUrl(config.state) || config.stateUrlFile ? undefined : sentPathFor(config.state);
  const notifier = new Notifier({
    url: config.notifyUrl,
    logger,
    redact: (json) => io.redactor.showJson(json),
    sent: memory ? await readSent(memory) : {},
  });
  notifier.notifyRun(eventsOfRun(factsOfRun(result, { resync: false, dryRun: config.dryRun })));
  await notifier.flush();
  if (config.dryRun || !memory) return;
  await writeSent(memory, notifier.sent()).catch((error: Error) =>
    logger.warn({ stage: 'notify', path: memory, err: error.message }, 'cannot remember what was sent'),
  );
}
