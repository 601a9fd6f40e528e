import type { PacerClock } from '../../src/service/pacing.js';

/** A clock the test moves by hand: timers fire only in `advance`. */
export class FakeClock implements PacerClock {
  time = 1_000_000;
  timers: Array<{ at: number; callback: () => void }> = [];

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer = { at: this.time + ms, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const timer of due) timer.callback();
  }
}
