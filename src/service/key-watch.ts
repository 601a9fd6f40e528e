import { AuthError, KeyRevokedError, ServiceError } from './errors.js';

// The service's web UI can regenerate the API key, which ends the old one at once. A key refused after
// the service accepted it in this process was rotated or revoked: nothing more is sent with it (the
// requests waiting for their turn included), and the run stops saying so, rather than retrying or
// sending every queued operation to meet the same refusal. What to do about it depends on where the key
// came from (a daemon reads its key file again; a key in the environment needs a restart): `advice`.

/** What a one-shot run says to do about a rotated key. */
const RUN_AGAIN_ADVICE = 'Set the new key in WEBSITES_SYNC_API_KEY or the --api-key-file and run again.';

/** A refusal of the key seen by this client: at the first request, or after it was accepted. */
export type KeyRefusal = 'refused' | 'revoked';

export class KeyWatch {
  #accepted = false;
  #revoked: KeyRevokedError | undefined;
  #refusal: KeyRefusal | undefined;
  readonly #stop: () => void;
  readonly #advice: string;

  /** `stop`: what keeps the requests waiting for their turn from being sent; `advice`: what to do. */
  constructor(stop: () => void, advice = RUN_AGAIN_ADVICE) {
    this.#stop = stop;
    this.#advice = advice;
  }

  /** Whether the service refused the key (401, not 403: that is a missing right, not a bad key). */
  get refusal(): KeyRefusal | undefined {
    return this.#refusal;
  }

  /** Before a request is sent: once the key is known to be revoked, nothing is. */
  beforeSending(method: string, path: string): void {
    if (!this.#revoked) return;
    throw new KeyRevokedError(`${method} ${path}: not sent: ${this.#revoked.message}`, {
      method,
      path,
      status: this.#revoked.status,
    });
  }

  /** The decoded answer, or its error: a refusal after an acceptance becomes "rotated or revoked". */
  answer<T>(decode: () => T): T {
    try {
      const decoded = decode();
      this.#accepted = true;
      return decoded;
    } catch (error) {
      throw this.#seen(error);
    }
  }

  #seen(error: unknown): unknown {
    if (!(error instanceof ServiceError)) return error;
    const refused = error instanceof AuthError && error.status !== 403;
    if (!refused) {
      // Answered past the key check: a 404, a 422 and a 429 come from behind the authentication.
      if (error.status !== undefined && error.status >= 400 && error.status < 500) this.#accepted = true;
      return error;
    }
    if (!this.#accepted) {
      this.#refusal ??= 'refused';
      return error;
    }
    this.#refusal = 'revoked';
    // What the service answered (who refused, with what status or redirect), then what it means.
    const said = error.message.replace(/\s*Check WEBSITES_SYNC_API_KEY.*$/, '');
    this.#revoked ??= new KeyRevokedError(
      `${said} This came part-way through the run, after the key was accepted: the key was rotated or revoked (regenerating it in the service's web interface ends the old one at once). Stopped at once: nothing more was sent. ${this.#advice}`,
      { method: error.method, path: error.path, status: error.status, cause: error },
    );
    this.#stop();
    return this.#revoked;
  }
}
