import type { Logger } from 'pino';

// A standing condition (no state file yet, the service not answering) is met again by every run that
// looks. A one-shot run says it every time; a daemon says it once while it stands, and once when it
// ends, as controllers report a condition's transitions: a resync every few minutes would otherwise
// repeat the same lines until they bury new ones.

export interface Condition {
  /** Its identity: the same key met by consecutive runs is the same condition, still standing. */
  key: string;
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  message: string;
  /**
   * Said (info) once it ends, when it was said: a run that looks no longer meets it. Conditions that
   * share this text end together: it is said once none of them stands any more.
   */
  ended?: string;
}

/** Says conditions for a daemon (daemon/condition-log.ts). */
export interface ConditionSink {
  say(condition: Condition, logger: Logger): void;
}

/** Logs `condition` through `sink` when there is one (a daemon), else every time (a one-shot run). */
export function sayCondition(sink: ConditionSink | undefined, logger: Logger, condition: Condition): void {
  if (sink) sink.say(condition, logger);
  else logger[condition.level](condition.fields, condition.message);
}
