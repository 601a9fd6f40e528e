import type { Logger } from 'pino';
import type { Condition, ConditionSink } from '../model/index.js';

// The daemon's side of model/condition.ts: each condition is said once while it stands (later runs
// that meet it again log it at debug level only), and its `ended` line once a run that looked at
// everything (a resync that planned) no longer meets it. A condition that comes back is said again.

export class ConditionLog implements ConditionSink {
  /** Said and standing, by key. */
  readonly #standing = new Map<string, Condition>();
  /** Met since the last `begin`: by the resync in progress. */
  readonly #met = new Set<string>();

  /**
   * A resync starts reading: what earlier runs met (a resync that failed before it planned, an edit's
   * run) is not what this one meets, which its `settle` tells apart.
   */
  begin(): void {
    this.#met.clear();
  }

  say(condition: Condition, logger: Logger): void {
    this.#met.add(condition.key);
    if (this.#standing.has(condition.key)) {
      logger.debug({ ...condition.fields, repeated: true }, condition.message);
      return;
    }
    this.#standing.set(condition.key, condition);
    logger[condition.level](condition.fields, condition.message);
  }

  /**
   * After a run that met every condition it could (a resync): those it did not meet have ended. Only
   * such a run may tell, since an edit's run reads part of the account and would miss some.
   */
  settle(logger: Logger): void {
    const ended = new Set<string>();
    for (const [key, condition] of this.#standing) {
      if (this.#met.has(key)) continue;
      this.#standing.delete(key);
      if (condition.ended !== undefined) ended.add(condition.ended);
    }
    this.#met.clear();
    for (const condition of this.#standing.values()) ended.delete(condition.ended ?? '');
    for (const text of ended) logger.info({ stage: 'daemon' }, text);
  }
}
