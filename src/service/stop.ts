import { ServiceError, type ServiceErrorOptions } from './errors.js';

// A run asked to stop (SIGTERM, SIGINT) finishes the requests already sent, and sends no other: an
// attempt still waiting for its turn (the rate limit's window, the key's budget, a retry's pause) is
// not sent, so the stop is bounded by the requests in flight, not by the service's window. Every wait of
// the client takes the gate's one AbortSignal: the pacer's and the budget's queues give up their places
// (`waitInQueue`), a retry's pause ends at once (`pauseUntil`), and what follows it meets the gate.

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
  readonly #controller = new AbortController();

  /** Aborted once the run stops (its reason: the error a held-back attempt fails with). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** From now on no attempt is sent; the ones waiting for their turn fail at once. */
  stop(): void {
    this.#controller.abort(new StoppedBeforeSending());
  }

  /** An attempt's wait (pacing, budget), cut short by a stop; undefined when it may go at once. */
  around(wait: Promise<void> | undefined): Promise<void> | undefined {
    const signal = this.signal;
    if (signal.aborted) {
      // A wait given up because of the same stop rejects too: that is no news.
      wait?.catch(() => {});
      return Promise.reject(signal.reason);
    }
    if (wait === undefined) return undefined;
    return new Promise((resolve, reject) => {
      const stop = () => reject(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      const settle = (error?: unknown) => {
        signal.removeEventListener('abort', stop);
        if (error !== undefined || signal.aborted) reject(error ?? signal.reason);
        else resolve();
      };
      wait.then(
        () => settle(),
        (error: unknown) => settle(error ?? new Error('wait failed')),
      );
    });
  }
}

/**
 * A place in `queue` (a pacer's or a budget's waiters, served in order by calling the entry), given up
 * when `signal` aborts: the promise then rejects with the signal's reason and `onLeave` runs (to cancel
 * a timer nobody waits for any more).
 */
export function waitInQueue(
  queue: Array<() => void>,
  signal: AbortSignal | undefined,
  onLeave: () => void,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const leave = () => {
      const at = queue.indexOf(served);
      if (at >= 0) queue.splice(at, 1);
      reject(signal?.reason);
      onLeave();
    };
    const served = () => {
      signal?.removeEventListener('abort', leave);
      resolve();
    };
    signal?.addEventListener('abort', leave, { once: true });
    queue.push(served);
  });
}

/**
 * Calls `callback` after `ms`, or at once when `signal` aborts (a retry's pause: the retry then meets the
 * gate and is not sent). Returns the timer, which the caller may clear.
 */
export function pauseUntil(
  callback: () => void,
  ms: number,
  signal: AbortSignal | undefined,
): NodeJS.Timeout {
  const early = () => {
    clearTimeout(timer);
    callback();
  };
  const timer = setTimeout(() => {
    signal?.removeEventListener('abort', early);
    callback();
  }, ms);
  if (signal?.aborted) queueMicrotask(early);
  else signal?.addEventListener('abort', early, { once: true });
  return timer;
}
