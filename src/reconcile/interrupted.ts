// A stop asked for while the account is being read ends the run at once: nothing was changed.

/** A stop was asked for while the account was being read: nothing was changed. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted before any change was made');
  }
}

/**
 * Reading a large account takes minutes at the rate limit; a stop asked for meanwhile ends the run at
 * once (the reads left behind change nothing), where a stop during the apply lets it finish its
 * operations in flight.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    // Abandoned: its failure (a request the stop held back) is no news.
    work.catch(() => {});
    return Promise.reject(new Interrupted());
  }
  return new Promise((resolve, reject) => {
    const stop = () => reject(new Interrupted());
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
