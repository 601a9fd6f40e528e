// The statistics the service keeps per website, as far as the tool reads them: `visitors` rows, one
// per date (the row's value is the date, its count the unique visitors of that day), which the stats
// endpoint sums between two dates. Deleting a website deletes them with it.

const DAY_MS = 86_400_000;

/** `Y-m-d` of a time, in UTC (the simulator's time zone). */
export function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export interface StatRow {
  value: string;
  count: number;
}

export class TrafficStore {
  /** Website id → date → visitors that day. */
  readonly #rows = new Map<number, Map<string, number>>();

  /** Adds visitors to a website's day. */
  add(id: number, date: string, count: number): void {
    if (count <= 0) return;
    let days = this.#rows.get(id);
    if (!days) {
      days = new Map();
      this.#rows.set(id, days);
    }
    days.set(date, (days.get(date) ?? 0) + count);
  }

  /**
   * `visitors_last_30d` of a seed: `total` visitors spread over the 30 days up to `now`, the remainder on
   * the most recent days, so a shorter window sees a share of them and any window sees some.
   */
  seedLast30Days(id: number, total: number, now: number): void {
    const base = Math.floor(total / 30);
    const extra = total % 30;
    for (let day = 0; day < 30; day++) this.add(id, dateOf(now - day * DAY_MS), base + (day < extra ? 1 : 0));
  }

  /** The `visitors` rows between two dates (inclusive), grouped by date: what the controller sums. */
  between(id: number, from: string, to: string): StatRow[] {
    const days = this.#rows.get(id);
    if (!days) return [];
    return [...days]
      .filter(([date]) => date >= from && date <= to)
      .map(([value, count]) => ({ value, count }));
  }

  forget(id: number): void {
    this.#rows.delete(id);
  }
}
