import { eventsOfRun, manifestEvent, type Notifier, runEvent } from '../notify/index.js';
import { factsOfRun, type ReconcileResult } from '../reconcile/index.js';
import { KeyRevokedError } from '../service/index.js';
import { KeyNotRenewedError } from './key-file.js';
import type { Trigger } from './scheduler.js';

// Whether the daemon's runs complete, and its manifest is valid, for its webhook: a run that ends
// without a plan is told once while the same failure stands (every resync meets it again), and the
// first run that completes after it is told too, as `manifest_invalid` and `manifest_valid` are for
// the file.

/**
 * A revoked key stops every later run the same way (until a new key is read from the key file): one
 * text for all of them, with what to do (`advice`, for where the key comes from).
 */
function revokedText(advice: string): string {
  const todo = `${advice.charAt(0).toLowerCase()}${advice.slice(1)}`;
  return `the service refused the API key after accepting it: it was rotated or revoked (regenerating it in the service's web interface ends the old one at once). Nothing is sent with it any more: ${todo}`;
}

export class RunHealth {
  readonly #notifier: Notifier | undefined;
  readonly #revoked: string;
  #failing = false;
  #wasValid: boolean | undefined;

  /** `keyAdvice`: what to do about a rotated key (keyAdvice() of where the key comes from). */
  constructor(notifier: Notifier | undefined, keyAdvice: string) {
    this.#notifier = notifier;
    this.#revoked = revokedText(keyAdvice);
  }

  /** A run ended without a plan, for `error`. */
  failed(error: unknown): void {
    this.#failing = true;
    const revoked =
      error instanceof KeyRevokedError || (error instanceof KeyNotRenewedError && error.revoked);
    const reason = revoked ? this.#revoked : error instanceof Error ? error.message : String(error);
    this.#notifier?.notify([runEvent(reason)]);
  }

  /** The manifest became invalid, or valid again: told once per change (the first state is silent). */
  validity(valid: boolean, firstError: string): void {
    if (this.#wasValid !== undefined && valid !== this.#wasValid) {
      this.#notifier?.notify([manifestEvent(valid, firstError)]);
    }
    this.#wasValid = valid;
  }

  /** A run read the account and planned (whatever its operations did: they are told apart). */
  completed(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#notifier?.notify([runEvent(undefined)]);
  }
}

/** What a run that planned has to tell the webhook (drift, failures, refusals, scheduled deletes). */
export function notifyRun(
  notifier: Notifier | undefined,
  result: ReconcileResult,
  run: { triggers: readonly Trigger[]; dryRun: boolean },
): void {
  if (!notifier) return;
  const { triggers } = run;
  const facts = factsOfRun(result, {
    // Changes found by a resync (interval, SIGHUP), not by an edit of the manifest, are drift. The run
    // that takes a new key is no exception: it recognises the fingerprints recorded with the key it
    // replaced, so what it changes did drift.
    resync: !triggers.includes('change') && !triggers.includes('start'),
    // Observe mode applies nothing: it tells only the observed drift.
    dryRun: run.dryRun,
  });
  notifier.notifyRun(eventsOfRun(facts));
}
