import type { Outcome } from '../apply/index.js';
import { formatDuration } from '../model/index.js';
import { type Plan, renderText } from '../plan/index.js';
import { outcomeLine } from './output.js';

// `--once` in text format, like `terraform apply`: the plan first, then a line per operation as it
// completes, then (from the caller) the summary. On a terminal, a progress line with the time left sits
// under the operations on stderr, for runs that take minutes at the service's rate limit.

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export class LiveOutput {
  readonly #stdout: Stream;
  readonly #color: boolean;
  readonly #progress: Progress | undefined;
  #started = false;

  constructor(stdout: Stream, stderr: Stream, color: boolean, now: () => number = Date.now) {
    this.#stdout = stdout;
    this.#color = color;
    this.#progress = stderr.isTTY ? new Progress(stderr, now) : undefined;
  }

  /** True once the plan was printed: the caller then prints only the summary. */
  get started(): boolean {
    return this.#started;
  }

  readonly plan = (plan: Plan): void => {
    this.#started = true;
    this.#stdout.write(`${renderText(plan, { color: this.#color })}\n`);
    this.#progress?.start(plan.changes.length);
  };

  readonly outcome = (outcome: Outcome): void => {
    this.#progress?.clear();
    this.#stdout.write(outcomeLine(outcome, this.#color));
    this.#progress?.tick();
  };

  finish(): void {
    this.#progress?.clear();
  }
}

/** `[120/900] 13%, about 2m10s left`, redrawn in place at most a few times a second. */
export class Progress {
  readonly #stream: Stream;
  readonly #now: () => number;
  #total = 0;
  #done = 0;
  #startedAt = 0;
  #drawnAt = Number.NEGATIVE_INFINITY;
  #shown = false;

  constructor(stream: Stream, now: () => number = Date.now) {
    this.#stream = stream;
    this.#now = now;
  }

  start(total: number): void {
    this.#total = total;
    this.#startedAt = this.#now();
  }

  tick(): void {
    this.#done += 1;
    const now = this.#now();
    if (now - this.#drawnAt < 250 && this.#done < this.#total) return;
    this.#drawnAt = now;
    this.#stream.write(`\r\u001b[K${this.line(now)}`);
    this.#shown = true;
  }

  /** Erases the line, so other output never lands after it. */
  clear(): void {
    if (!this.#shown) return;
    this.#stream.write('\r\u001b[K');
    this.#shown = false;
  }

  line(now = this.#now()): string {
    const percent = this.#total === 0 ? 100 : Math.floor((this.#done / this.#total) * 100);
    const head = `[${this.#done}/${this.#total}] ${percent}%`;
    const remaining = this.#total - this.#done;
    if (this.#done === 0 || remaining === 0) return head;
    const leftMs = ((now - this.#startedAt) / this.#done) * remaining;
    return `${head}, about ${formatDuration(Math.max(1000, leftMs))} left`;
  }
}
