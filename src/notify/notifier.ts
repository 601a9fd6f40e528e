// POSTs events to a webhook (`--notify-url`). Sending is bounded (a timeout, a few tries), never blocks
// or fails a run, never carries a secret (every body passes the run's redactor), and the same event is
// not sent twice in a row.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { request } from 'undici';
import type { NotifyEvent } from './events.js';

export interface NotifierOptions {
  url: string;
  logger: Logger;
  /** Masks every secret the run knows. */
  redact: (text: string) => string;
  timeoutMs?: number;
  attempts?: number;
}

export class Notifier {
  readonly #options: NotifierOptions;
  #last: string | undefined;
  #pending: Promise<void> = Promise.resolve();

  constructor(options: NotifierOptions) {
    this.#options = options;
  }

  /** Queues the events; returns at once. `flush` waits for them (bounded). */
  notify(events: readonly NotifyEvent[]): void {
    for (const event of events) {
      const body = this.#options.redact(JSON.stringify({ ...event, at: new Date().toISOString() }));
      const hash = createHash('sha256').update(JSON.stringify(event)).digest('hex');
      if (hash === this.#last) continue;
      this.#last = hash;
      this.#pending = this.#pending.then(() => this.#send(event.event, body));
    }
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
