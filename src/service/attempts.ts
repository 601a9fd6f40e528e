import type { Dispatcher } from 'undici';
import type { AttemptHooks, AttemptInfo } from './attempt-types.js';
import { AFTER_SENDING_CODES } from './retry-policy.js';

// The innermost interceptor: every attempt (retries included) passes here, so pacing and metrics see
// each one exactly once. It also holds an answer back until its body is complete. The service's
// answers are small JSON documents, and a body that stalls (body timeout) or breaks off then reaches
// the retry interceptor as a failed attempt, retried from scratch like a reset; once an answer's
// headers went through, undici would instead try to resume it with a Range request, which this API
// does not support.

/** undici's IncomingHttpHeaders, which its Dispatcher namespace does not re-export. */
type Headers = AttemptInfo['headers'];

/** Runs `first`'s hooks, then `second`'s: pacing decides before anything else is awaited. */
export function composeHooks(first: AttemptHooks, second: AttemptHooks): AttemptHooks {
  return {
    beforeAttempt: (signal) => {
      const wait = first.beforeAttempt?.(signal);
      if (!wait) return second.beforeAttempt?.(signal);
      return wait.then(() => second.beforeAttempt?.(signal));
    },
    afterAttempt: (info) => {
      first.afterAttempt?.(info);
      second.afterAttempt?.(info);
    },
    onRetry: (info) => {
      first.onRetry?.(info);
      second.onRetry?.(info);
    },
  };
}

/** The attempts sent and not answered yet (what a stop waits for), counted by the interceptor. */
export interface Wire {
  inFlight: number;
}

/**
 * Whether an attempt of one request went out and its answer was lost (the connection broke or stalled
 * after it was sent): the service may have acted on it, and a later attempt then meets what it did (a
 * DELETE's 404). Passed in the request's options as `answerWatch` (http.ts), set here.
 */
export interface AnswerWatch {
  lost: boolean;
}

/** Failures of an attempt already sent (retry-policy.ts classifies undici's codes). */
const ANSWER_LOST = new Set(AFTER_SENDING_CODES);

/** Raised when an attempt's whole body did not arrive within the deadline. */
export class BodyDeadlineError extends Error {
  readonly code = 'WS_BODY_DEADLINE';
}

/** Raised when an attempt's body grew past the size limit: it is not read further, nor retried. */
export class ResponseTooLargeError extends Error {
  readonly code = 'WS_RESPONSE_TOO_LARGE';
}

/** What bounds each attempt here, whichever connection pool undici sends it through. */
export interface AttemptBounds {
  /**
   * undici's bodyTimeout bounds only the gap between two chunks, so a body sent a byte a second would
   * never end; each attempt's whole body gets this deadline from its headers on.
   */
  deadlineMs: number;
  /** The most bytes of a body held; a longer one is cut off. */
  maxBytes: number;
}

export function attemptInterceptor(
  hooks: AttemptHooks,
  bounds: AttemptBounds,
  wire: Wire = { inFlight: 0 },
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const attempt = new BufferedAttempt(opts, handler, { hooks, bounds, wire });
    let wait: Promise<void> | undefined;
    try {
      wait = hooks.beforeAttempt?.();
    } catch (error) {
      attempt.fail(error);
      return true;
    }
    if (!wait) return attempt.send(dispatch);
    wait.then(
      () => attempt.send(dispatch),
      (error: unknown) => attempt.fail(error),
    );
    return true;
  };
}

class BufferedAttempt implements Dispatcher.DispatchHandler {
  readonly #opts: Dispatcher.DispatchOptions;
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #hooks: AttemptHooks;
  readonly #info: Pick<AttemptInfo, 'method' | 'path'>;
  #status = 0;
  #statusMessage = '';
  #headers: Headers = {};
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #reported = false;
  readonly #bounds: AttemptBounds;
  #deadline: NodeJS.Timeout | undefined;
  #expired = false;
  readonly #wire: Wire;
  #onWire = false;
  #unsent = false;

  constructor(
    opts: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
    context: { hooks: AttemptHooks; bounds: AttemptBounds; wire: Wire },
  ) {
    this.#bounds = context.bounds;
    this.#wire = context.wire;
    this.#opts = opts;
    this.#handler = handler;
    this.#hooks = context.hooks;
    this.#info = { method: opts.method, path: opts.path.split('?')[0] ?? opts.path };
  }

  send(dispatch: Dispatcher['dispatch']): boolean {
    this.#onWire = true;
    this.#wire.inFlight++;
    try {
      return dispatch(this.#opts, this);
    } catch (error) {
      this.fail(error);
      return true;
    }
  }

  /** The attempt could not be sent: reported as failed, and aborted so that it is not retried. */
  fail(error: unknown): void {
    this.#unsent = true;
    this.onResponseError(abortedController, error instanceof Error ? error : new Error(String(error)));
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Headers,
    socket: import('node:stream').Duplex,
  ): void {
    this.#handler.onRequestUpgrade?.(controller, status, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Headers,
    statusMessage?: string,
  ): void {
    this.#deadline = setTimeout(
      () => this.#cutOff(controller, new BodyDeadlineError('the whole response did not arrive')),
      this.#bounds.deadlineMs,
    );
    this.#status = status;
    this.#headers = headers;
    this.#statusMessage = statusMessage ?? '';
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#expired) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#bounds.maxBytes) {
      this.#cutOff(controller, new ResponseTooLargeError('the response was longer than the limit'));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(_controller: Dispatcher.DispatchController, trailers: Headers): void {
    clearTimeout(this.#deadline);
    this.#report({ ...this.#info, status: this.#status, headers: this.#headers });
    // The attempt is over: the retry handler may pause or resume it while it decides, which must not
    // touch a connection that has moved on to another request.
    const handler = this.#handler;
    handler.onResponseStart?.(doneController, this.#status, this.#headers, this.#statusMessage);
    for (const chunk of this.#chunks) handler.onResponseData?.(doneController, chunk);
    handler.onResponseEnd?.(doneController, trailers);
  }

  /**
   * The deadline passed or the body grew too long: the connection is aborted, and the retry handler
   * above is told of a failed attempt (not of an abort, which it would never retry), so a slow answer
   * is retried like a stalled one; one too long is not (retry-policy.ts).
   */
  #cutOff(controller: Dispatcher.DispatchController, error: Error): void {
    this.#expired = true;
    clearTimeout(this.#deadline);
    this.#chunks.length = 0;
    controller.abort(error);
    this.#forwardError(doneController, error);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    clearTimeout(this.#deadline);
    // The abort of an expired attempt: its failure was already reported.
    if (this.#expired) return;
    this.#forwardError(controller, error);
  }

  #forwardError(controller: Dispatcher.DispatchController, error: Error): void {
    const watch = (this.#opts as { answerWatch?: AnswerWatch }).answerWatch;
    const code = (error as { code?: unknown }).code;
    if (watch && !this.#unsent && typeof code === 'string' && ANSWER_LOST.has(code)) watch.lost = true;
    this.#report({ ...this.#info, status: undefined, headers: {}, error });
    this.#handler.onResponseError?.(controller, error);
  }

  #report(info: AttemptInfo): void {
    if (this.#reported) return;
    this.#reported = true;
    if (this.#onWire) this.#wire.inFlight--;
    this.#hooks.afterAttempt?.(info);
  }
}

function inertController(aborted: boolean): Dispatcher.DispatchController {
  // Only the members the handlers read; a finished or unsent attempt has no connection to act on.
  return {
    abort() {},
    pause() {},
    resume() {},
    paused: false,
    aborted,
    reason: null,
  } as unknown as Dispatcher.DispatchController;
}

const doneController = inertController(false);
const abortedController = inertController(true);
