// Decides when a run happens, never what it does: runs never overlap, requests made during a run
// coalesce into exactly one follow-up, and the resync interval counts from the end of the last run that
// read the whole account (a SIGHUP's resets it too, so drift checks are never back to back). A run that
// did not (an edit re-reads only what it touched; an invalid manifest reads nothing) leaves the
// countdown running: else edits coming more often than the interval would keep drift from ever being
// looked for.

/** Why a run happens; a coalesced run carries every reason it absorbed. */
export type Trigger = 'start' | 'change' | 'signal' | 'interval';

/** Injectable timers, so tests (and fake clocks) decide when "later" is. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SchedulerOptions {
  /**
   * One run; it should not throw (a throw is handed to `onError` and scheduling goes on). It resolves
   * `false` when it did not read the whole account (the interval's countdown then goes on).
   */
  run: (triggers: Trigger[]) => Promise<boolean | undefined>;
  intervalMs: number;
  timers?: Timers;
  onError?: (error: unknown) => void;
  /** Called when a run ends with no other one pending. */
  onIdle?: () => void;
}

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #timers: Timers;
  readonly #pending = new Set<Trigger>();
  #running: Promise<void> | undefined;
  #interval: unknown;
  #stopped = false;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
  }

  /** Asks for a run: now when idle, else once after the current one (however many requests arrive). */
  request(trigger: Trigger): void {
    if (this.#stopped) return;
    this.#pending.add(trigger);
    if (!this.#running) this.#startNext();
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** No new run starts after this; resolves when the run in progress (if any) has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pending.clear();
    this.#disarm();
    await this.#running;
  }

  #startNext(): void {
    if (this.#stopped || this.#pending.size === 0) return;
    const triggers = [...this.#pending];
    this.#pending.clear();
    this.#running = this.#options
      .run(triggers)
      .then((listed) => {
        // The account was just read whole: the interval counts from now, and one due meanwhile is moot.
        if (listed === false) return;
        this.#disarm();
        this.#pending.delete('interval');
      })
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        this.#running = undefined;
        if (this.#pending.size > 0) return this.#startNext();
        this.#arm();
        this.#options.onIdle?.();
      });
  }

  #arm(): void {
    if (this.#stopped || this.#interval !== undefined) return;
    this.#interval = this.#timers.setTimeout(() => {
      this.#interval = undefined;
      this.request('interval');
    }, this.#options.intervalMs);
  }

  #disarm(): void {
    if (this.#interval === undefined) return;
    this.#timers.clearTimeout(this.#interval);
    this.#interval = undefined;
  }
}

/** True when `work` settles within `ms`. */
export async function withinGrace(work: Promise<void>, ms: number, timers: Timers): Promise<boolean> {
  let timer: unknown;
  const expired = new Promise<false>((done) => {
    timer = timers.setTimeout(() => done(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), expired]);
  } finally {
    timers.clearTimeout(timer);
  }
}
