// A long phase (thousands of creates at the service's rate limit) must not lose its fingerprints to a
// kill: the state is saved while it runs, coalesced so that at most one save is in flight and saves
// come at most once per interval. A kill then loses at most the last interval's operations.

export interface PersistOptions {
  save: () => Promise<void>;
  intervalMs: number;
  now?: () => number;
}

export class CoalescedSaver {
  readonly #options: PersistOptions;
  #last = 0;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #dirty = false;

  constructor(options: PersistOptions) {
    this.#options = options;
  }

  /** Something changed: saved now if the interval has passed, else once it has. */
  changed(): void {
    this.#dirty = true;
    if (this.#running || this.#timer) return;
    const now = (this.#options.now ?? Date.now)();
    const wait = this.#last + this.#options.intervalMs - now;
    if (wait <= 0) void this.#save();
    else this.#timer = setTimeout(() => void this.#save(), wait);
  }

  /** Waits for a save in flight, then saves whatever is left. */
  async flush(): Promise<void> {
    await this.#running;
    // The save in flight may have scheduled the next one on its way out: this flush is that save, and
    // a timer left behind would hold a stopping process open for up to an interval.
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#dirty) await this.#save();
  }

  #save(): Promise<void> {
    this.#timer = undefined;
    this.#dirty = false;
    this.#last = (this.#options.now ?? Date.now)();
    this.#running = this.#options.save().finally(() => {
      this.#running = undefined;
      if (this.#dirty) this.changed();
    });
    // A failed save is reported by the flush at the end of the phase, which saves again.
    this.#running.catch(() => {
      this.#dirty = true;
    });
    return this.#running;
  }
}
