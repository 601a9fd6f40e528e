// POSTs events to a webhook (`--notify-url`). Sending is bounded (a timeout, a few tries), never blocks
// or fails a run, never carries a secret nor a character a receiver's screen would interpret (every body
// passes the run's redactor, `showJson`; the one line for people, `text`, shows them escaped), and the same event is
// not sent twice in a row: the last event delivered is remembered per topic (its kind), so a run that
// has several things to tell sends each once while it stays the same, and again when it changes. Only
// a delivered event (the receiver answered 2xx) is remembered: one the receiver did not take (it was
// unreachable, answered 5xx or 429 on every try, or refused it with another 4xx) is told again by the
// next run, and meanwhile an event on its way is not queued a second time.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { request } from 'undici';
import { shownText } from '../model/index.js';
import { type NotifyEvent, RUN_KINDS, topicOf } from './events.js';

export interface NotifierOptions {
  url: string;
  logger: Logger;
  /** A body's JSON text, every secret the run knows masked and controls escaped (Redactor.showJson). */
  redact: (json: string) => string;
  timeoutMs?: number;
  attempts?: number;
  /** What an earlier run sent, per topic (`sent()` of its notifier): `--once` keeps it between runs. */
  sent?: Readonly<Record<string, string>>;
  /**
   * Told what is remembered (`sent()`) each time it changes (a delivery, a situation forgotten): the
   * daemon keeps it with the state, so a restart or a new leader does not tell the same again.
   */
  onMemory?: (sent: Record<string, string>) => void;
}

export class Notifier {
  readonly #options: NotifierOptions;
  /** Per topic, the hash of the last event delivered about it. */
  #last: Map<string, string>;
  /** Memories being loaded (`remember`). */
  #reloading = 0;
  /** Per topic, the hash of the event queued or being sent about it (not delivered yet). */
  readonly #queued = new Map<string, string>();
  #pending: Promise<void> = Promise.resolve();

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#last = new Map(Object.entries(options.sent ?? {}));
  }

  /** Per topic, the hash of the last event delivered about it: to hand to the next run's notifier. */
  sent(): Record<string, string> {
    return Object.fromEntries(this.#last);
  }

  /**
   * What was delivered, as kept elsewhere (by the leader before this one), loaded in its turn (after the
   * deliveries queued before it): it replaces what this knew, unless it could not be read (undefined).
   * Events queued meanwhile are compared with it, not with what it replaces.
   */
  remember(load: () => Promise<Readonly<Record<string, string>> | undefined>): void {
    this.#reloading++;
    this.#pending = this.#pending.then(async () => {
      try {
        const sent = await load();
        if (sent) this.#last = new Map(Object.entries(sent));
      } finally {
        this.#reloading--;
      }
    });
  }

  /**
   * Queues the events that differ from the last one delivered about the same topic and from the one
   * on its way; returns at once. `flush` waits for them (bounded).
   */
  notify(events: readonly NotifyEvent[]): void {
    for (const event of events) {
      const topic = topicOf(event.event);
      const compared = event.identity === undefined ? event : [event.event, event.identity];
      const hash = createHash('sha256').update(JSON.stringify(compared)).digest('hex');
      // While a memory is loading, what this knows may be stale: compared in the event's turn instead.
      const known = this.#reloading === 0 && this.#last.get(topic) === hash;
      if (known || this.#queued.get(topic) === hash) continue;
      this.#queued.set(topic, hash);
      const { details: _compared, identity: _identity, ...shown } = event;
      // `text` is what a chat shows as the message: escaped visibly; `websites` keep the exact names.
      const message = { ...shown, text: shownText(shown.text), at: new Date().toISOString() };
      const body = this.#options.redact(JSON.stringify(message));
      this.#pending = this.#pending.then(async () => {
        // Known by now to have been delivered (a memory read meanwhile, `remember`): not sent again.
        const delivered = this.#last.get(topic) === hash || (await this.#send(event.event, body));
        // Not remembered when the topic was forgotten or a newer event queued meanwhile.
        if (this.#queued.get(topic) !== hash) return;
        this.#queued.delete(topic);
        if (!delivered) return;
        this.#last.set(topic, hash);
        this.#options.onMemory?.(this.sent());
      });
    }
  }

  /**
   * The events of one run (`eventsOfRun`): as `notify`, and what the run no longer has to tell is
   * forgotten, so a situation that ends and comes back is told again.
   */
  notifyRun(events: readonly NotifyEvent[]): void {
    const told = new Set(events.map((event) => topicOf(event.event)));
    const untold = RUN_KINDS.map(topicOf).filter((topic) => !told.has(topic));
    for (const topic of untold) this.#queued.delete(topic);
    const forget = () => {
      const forgot = untold.filter((topic) => this.#last.delete(topic));
      if (forgot.length > 0) this.#options.onMemory?.(this.sent());
    };
    // After a memory that is loading, or it would bring back what this run forgets.
    if (this.#reloading > 0) this.#pending = this.#pending.then(forget);
    else forget();
    this.notify(events);
  }

  flush(): Promise<void> {
    return this.#pending;
  }

  /**
   * Whether the receiver took the event (2xx). 5xx, 429 and a failed connection are tried again (a few
   * tries in all); any other answer would only be the same again, so it ends the tries at once.
   */
  async #send(kind: string, body: string): Promise<boolean> {
    const { url, logger } = this.#options;
    const attempts = this.#options.attempts ?? 3;
    const timeoutMs = this.#options.timeoutMs ?? 5_000;
    let failure: Record<string, unknown> = {};
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs * 2),
        });
        await response.body.dump();
        const status = response.statusCode;
        if (status >= 200 && status < 300) return true;
        failure = { status };
        if (status < 500 && status !== 429) break;
      } catch (error) {
        failure = { err: String(error) };
      }
    }
    logger.warn(
      { stage: 'notify', event: kind, ...failure },
      'webhook did not take the event; the next run tells it again if it still stands',
    );
    return false;
  }
}
