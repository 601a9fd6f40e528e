import type { WebsiteId } from '../model/index.js';
import { KEPT_PROTECTED } from './render-lifecycle.js';
import { type Change, type Plan, type PlanSummary, type Risk, type Shown, summarise } from './types.js';

// The documented, stable JSON plan (README "JSON plan format"). Bump FORMAT_VERSION on any change
// that could break a consumer; adding keys is not such a change.

export const FORMAT_VERSION = 1;

export interface JsonChange {
  action: Change['kind'];
  id: WebsiteId | null;
  domain: string;
  fields: Record<string, { from: Shown; to: Shown }>;
  risks: Risk[];
  risky: boolean;
}

export interface JsonPlan {
  format_version: typeof FORMAT_VERSION;
  summary: PlanSummary;
  changes: JsonChange[];
  warnings: string[];
  ignored: string[];
  unmanaged: string[];
  /** Drift of `observe: true` websites: never applied. */
  observed: JsonChange[];
  /** Deletes held back by `delete_delay`, with when they become due (ISO 8601, UTC). */
  pending_deletes: Array<{ id: WebsiteId; domain: string; since: string; due: string }>;
  /** Websites prune would delete, kept because they are protected. */
  protected: Array<{ domain: string; reason: string }>;
}

export function toJsonPlan(plan: Plan): JsonPlan {
  return {
    format_version: FORMAT_VERSION,
    summary: summarise(plan),
    changes: plan.changes.map(toJsonChange),
    warnings: plan.warnings,
    ignored: plan.ignored,
    unmanaged: plan.unmanaged,
    observed: plan.observed.map(toJsonChange),
    pending_deletes: plan.pendingDeletes.map(({ id, domain, since, due }) => ({ id, domain, since, due })),
    protected: plan.protected.map((domain) => ({ domain, reason: KEPT_PROTECTED })),
  };
}

function toJsonChange(change: Change): JsonChange {
  return {
    action: change.kind,
    id: change.kind === 'create' ? null : change.id,
    domain: change.domain,
    // Built from the display values only: `send` (which holds passwords in clear) is never read here.
    fields: Object.fromEntries(change.fields.map((f) => [f.field, { from: f.from, to: f.to }])),
    risks: change.risks,
    risky: change.risks.length > 0,
  };
}
