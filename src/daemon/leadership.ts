import type { Logger } from 'pino';
import type { Leadership, StateStore } from '../state/index.js';
import { realTimers, type Timers } from './scheduler.js';

// Daemon replicas on one shared state elect one leader: the one that holds the store's leader lock
// (PostgreSQL: a session-level advisory lock, released by the server when its connection ends). Only the
// leader lists, plans and writes. A standby tries again every `pollMs`, so it takes over within that
// time once the leader is gone. A file state has one daemon per file: it leads at once.

export const DEFAULT_LEADER_POLL_MS = 5_000;

export interface ElectionOptions {
  store: StateStore;
  pollMs?: number;
  logger: Logger;
  timers?: Timers;
  /** Leadership taken (at start or on a take-over). */
  onLead: () => void;
  /** Leading or standing by: for readiness and the metric. */
  onRole: (leading: boolean) => void;
}

export class LeaderElection {
  readonly #options: ElectionOptions;
  readonly #timers: Timers;
  #leadership: Leadership | undefined;
  #timer: unknown;
  #stopped = false;
  #standbyLogged = false;
  /** Only once a try found another leader: before the first try, this daemon is neither. */
  #standingBy = false;
  /** Why the last try could not use the state (neither leading nor standing by); undefined since. */
  #failure: string | undefined;

  constructor(options: ElectionOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
  }

  /** The leadership while this daemon leads; undefined on standby. */
  get leading(): Leadership | undefined {
    return this.#leadership?.lost.aborted ? undefined : this.#leadership;
  }

  /** Another daemon leads: this one stands by, ready to take over. */
  get standingBy(): boolean {
    return this.#standingBy && !this.#stopped;
  }

  /** The state could not be used at the last try: this daemon neither leads nor stands by. */
  get failure(): string | undefined {
    return this.#stopped ? undefined : this.#failure;
  }

  /** Tries once now (an error reaching the store stops the start), then every pollMs until it leads. */
  async start(): Promise<void> {
    await this.#try(true);
  }

  async #try(first: boolean): Promise<void> {
    if (this.#stopped) return;
    let leadership: Leadership | undefined;
    try {
      leadership = await this.#options.store.lead();
    } catch (error) {
      if (first) throw error;
      return this.#failed(error instanceof Error ? error.message : String(error));
    }
    if (this.#stopped) {
      await leadership?.release();
      return;
    }
    this.#failure = undefined;
    if (!leadership) return this.#standBy();
    this.#leadership = leadership;
    this.#standbyLogged = false;
    this.#standingBy = false;
    leadership.lost.addEventListener('abort', () => this.#lost(leadership), { once: true });
    this.#options.logger.info(
      { state: this.#options.store.shown },
      'leading: this daemon lists, plans and writes',
    );
    this.#options.onRole(true);
    this.#options.onLead();
  }

  #standBy(): void {
    this.#standingBy = true;
    this.#options.onRole(false);
    if (!this.#standbyLogged) {
      this.#options.logger.info(
        { state: this.#options.store.shown, pollMs: this.#pollMs() },
        'standby: another daemon leads this account; taking over when it is gone',
      );
      this.#standbyLogged = true;
    }
    this.#timer = this.#timers.setTimeout(() => void this.#try(false), this.#pollMs());
  }

  /**
   * An error is not another leader: not ready (no standby to count on), logged as an error once per
   * reason, and tried again every pollMs as a standby tries.
   */
  #failed(reason: string): void {
    if (this.#stopped) return;
    this.#standingBy = false;
    this.#standbyLogged = false;
    this.#options.onRole(false);
    if (reason !== this.#failure) {
      this.#options.logger.error(
        { state: this.#options.store.shown, err: reason, pollMs: this.#pollMs() },
        'cannot use the state to elect a leader: not ready; trying again',
      );
    }
    this.#failure = reason;
    this.#timer = this.#timers.setTimeout(() => void this.#try(false), this.#pollMs());
  }

  #lost(leadership: Leadership): void {
    if (this.#stopped || this.#leadership !== leadership) return;
    this.#leadership = undefined;
    const reason = leadership.lost.reason instanceof Error ? leadership.lost.reason.message : 'lost';
    this.#options.logger.error(
      { reason },
      'leadership lost: no operation is started and nothing is written until this daemon leads again',
    );
    void leadership.release();
    this.#standBy();
  }

  #pollMs(): number {
    return this.#options.pollMs ?? DEFAULT_LEADER_POLL_MS;
  }

  /** On a clean shutdown: leadership handed over at once (a rolling update waits for nobody). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    const leadership = this.#leadership;
    this.#leadership = undefined;
    await leadership?.release();
  }
}
