import type { Outcome } from '../apply/index.js';
import { formatDuration } from '../model/index.js';
import { type Plan, renderText } from '../plan/index.js';
import { outcomeLine } from './output.js';
import type { StatusLine } from './status-line.js';

// `--once` in text format, like `terraform apply`: the plan first, then a line per operation as it
// completes, then (from the caller) the summary. On a terminal, a run that will take a while (hundreds
// of writes at the service's rate limit) also shows a progress line with the time left, on stderr, in
// the terminal's status line: every other output is written around it, never appended to it.

interface Stream {
  write(text: string): unknown;
}

/**
 * The progress line appears once the estimated time left is at least this long; a run that will end
 * sooner needs no progress (a handful of operations are done before it would be read). Once shown, it
 * stays until the last operation.
 */
export const PROGRESS_MIN_TIME_LEFT_MS = 10_000;

export class LiveOutput {
  readonly #stdout: Stream;
  readonly #color: boolean;
  readonly #status: StatusLine;
  readonly #progress: Progress;
  #started = false;

  /** `stdout` must write around `status` (StatusLine.guard), as every output of the run does. */
  constructor(stdout: Stream, status: StatusLine, color: boolean, now: () => number = Date.now) {
    this.#stdout = stdout;
    this.#color = color;
    this.#status = status;
    this.#progress = new Progress(status, now);
  }

  /** True once the plan was printed: the caller then prints only the summary. */
  get started(): boolean {
    return this.#started;
  }

  readonly plan = (plan: Plan): void => {
    this.#started = true;
    this.#stdout.write(`${renderText(plan, { color: this.#color })}\n`);
    this.#progress.start(plan.changes.length);
  };

  readonly outcome = (outcome: Outcome): void => {
    this.#progress.tick();
    // Written around the status line, which is then drawn again with the count just updated.
    this.#stdout.write(outcomeLine(outcome, this.#color));
  };

  finish(): void {
    this.#status.clear();
  }
}

/**
 * `[120/900] 13%, about 2m10s left` in the status line, once the time left is long enough. Each tick
 * updates the text; the line is drawn again after the next output (the operation's line that follows).
 */
export class Progress {
  readonly #status: StatusLine;
  readonly #now: () => number;
  #total = 0;
  #done = 0;
  #startedAt = 0;
  #shown = false;

  constructor(status: StatusLine, now: () => number = Date.now) {
    this.#status = status;
    this.#now = now;
  }

  start(total: number): void {
    this.#total = total;
    this.#startedAt = this.#now();
  }

  tick(): void {
    this.#done += 1;
    const now = this.#now();
    if (this.#shown) {
      this.#status.update(this.line(now));
    } else if (this.#timeLeft(now) >= PROGRESS_MIN_TIME_LEFT_MS) {
      this.#shown = true;
      this.#status.show(this.line(now));
    }
  }

  line(now = this.#now()): string {
    const percent = this.#total === 0 ? 100 : Math.floor((this.#done / this.#total) * 100);
    const head = `[${this.#done}/${this.#total}] ${percent}%`;
    if (this.#done === 0 || this.#done >= this.#total) return head;
    return `${head}, about ${formatDuration(Math.max(1000, this.#timeLeft(now)))} left`;
  }

  /** From the pace so far: the time per operation done, times the operations left. */
  #timeLeft(now: number): number {
    if (this.#done === 0 || this.#done >= this.#total) return 0;
    return ((now - this.#startedAt) / this.#done) * (this.#total - this.#done);
  }
}
