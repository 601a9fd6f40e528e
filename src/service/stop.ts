import { ServiceError, type ServiceErrorOptions } from './errors.js';

// A run asked to stop (SIGTERM, SIGINT) finishes the requests already sent, and sends no other: an
// attempt still waiting for its turn (the rate limit's window, the key's budget, a retry's pause) is
// not sent, so the stop is bounded by the requests in flight, not by the service's window.

/** A request that was never sent because the run is stopping: the service did nothing with it. */
export class NotSentError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions) {
    super(message, options);
    this.name = 'NotSentError';
  }

  override get ambiguous(): boolean {
    return false;
  }
}

/** What an attempt held back by the gate fails with, below HTTP. */
class StoppedBeforeSending extends Error {
  constructor() {
    super('not sent: the run is stopping');
  }
}

export function isStoppedBeforeSending(error: unknown): boolean {
  return error instanceof StoppedBeforeSending;
}

export class StopGate {
  #stopped = false;
  readonly #waiting = new Set<(error: Error) => void>();

  /** From now on no attempt is sent; the ones waiting for their turn fail at once. */
  stop(): void {
    this.#stopped = true;
    for (const fail of this.#waiting) fail(new StoppedBeforeSending());
    this.#waiting.clear();
  }

  /** An attempt's wait (pacing, budget), cut short by a stop; undefined when it may go at once. */
  around(wait: Promise<void> | undefined): Promise<void> | undefined {
    if (this.#stopped) return Promise.reject(new StoppedBeforeSending());
    if (wait === undefined) return undefined;
    return new Promise((resolve, reject) => {
      this.#waiting.add(reject);
      wait.then(
        () => {
          this.#waiting.delete(reject);
          if (this.#stopped) reject(new StoppedBeforeSending());
          else resolve();
        },
        (error: unknown) => {
          this.#waiting.delete(reject);
          reject(error);
        },
      );
    });
  }
}
