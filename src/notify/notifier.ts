// POSTs events to a webhook (`--notify-url`). Sending is bounded (a timeout, a few tries), never blocks
// or fails a run, never carries a secret (every body passes the run's redactor), and the same event is
// not sent twice in a row: the last event sent is remembered per topic (its kind), so a run that has
// several things to tell sends each once while it stays the same, and again when it changes.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { request } from 'undici';
import { type NotifyEvent, RUN_KINDS, topicOf } from './events.js';

export interface NotifierOptions {
  url: string;
  logger: Logger;
  /** Masks every secret the run knows. */
  redact: (text: string) => string;
  timeoutMs?: number;
  attempts?: number;
  /** What an earlier run sent, per topic (`sent()` of its notifier): `--once` keeps it between runs. */
  sent?: Readonly<Record<string, string>>;
}

export class Notifier {
  readonly #options: NotifierOptions;
  /** Per topic, the hash of the last event sent about it. */
  readonly #last: Map<string, string>;
  #pending: Promise<void> = Promise.resolve();

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#last = new Map(Object.entries(options.sent ?? {}));
  }

  /** Per topic, the hash of the last event sent about it: to hand to the next run's notifier. */
  sent(): Record<string, string> {
    return Object.fromEntries(this.#last);
  }

  /**
   * Queues the events that differ from the last one sent about the same topic; returns at once.
   * `flush` waits for them (bounded).
   */
  notify(events: readonly NotifyEvent[]): void {
    for (const event of events) {
      const topic = topicOf(event.event);
      const hash = createHash('sha256').update(JSON.stringify(event)).digest('hex');
      if (this.#last.get(topic) === hash) continue;
      this.#last.set(topic, hash);
      const { details: _compared, ...shown } = event;
      const body = this.#options.redact(JSON.stringify({ ...shown, at: new Date().toISOString() }));
      this.#pending = this.#pending.then(() => this.#send(event.event, body));
    }
  }

  /**
   * The events of one run (`eventsOfRun`): as `notify`, and what the run no longer has to tell is
   * forgotten, so a situation that ends and comes back is told again.
   */
  notifyRun(events: readonly NotifyEvent[]): void {
    const told = new Set(events.map((event) => topicOf(event.event)));
    for (const kind of RUN_KINDS) if (!told.has(topicOf(kind))) this.#last.delete(topicOf(kind));
    this.notify(events);
  }

  flush(): Promise<void> {
    return this.#pending;
  }

  async #send(kind: string, body: string): Promise<void> {
    const { url, logger } = this.#options;
    const attempts = this.#options.attempts ?? 3;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          headersTimeout: this.#options.timeoutMs ?? 5_000,
          bodyTimeout: this.#options.timeoutMs ?? 5_000,
          signal: AbortSignal.timeout((this.#options.timeoutMs ?? 5_000) * 2),
        });
        await response.body.dump();
        if (response.statusCode < 500 && response.statusCode !== 429) {
          if (response.statusCode >= 400)
            logger.warn(
              { stage: 'notify', event: kind, status: response.statusCode },
              'webhook refused the event',
            );
          return;
        }
      } catch (error) {
        if (attempt === attempts) {
          logger.warn(
            { stage: 'notify', event: kind, err: String(error) },
            'webhook unreachable; event dropped',
          );
        }
      }
    }
  }
}
