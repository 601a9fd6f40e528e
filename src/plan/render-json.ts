import { type Change, type Plan, type PlanSummary, type Risk, type Shown, summarise } from './types.js';

// The documented, stable JSON plan (README "JSON plan format"). Bump FORMAT_VERSION on any change
// that could break a consumer; adding keys is not such a change.

export const FORMAT_VERSION = 1;

export interface JsonChange {
  action: Change['kind'];
  id: number | null;
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
}

export function toJsonPlan(plan: Plan): JsonPlan {
  return {
    format_version: FORMAT_VERSION,
    summary: summarise(plan),
    changes: plan.changes.map((change) => ({
      action: change.kind,
      id: change.kind === 'create' ? null : change.id,
      domain: change.domain,
      // Built from the display values only: `send` (which holds passwords in clear) is never read here.
      fields: Object.fromEntries(change.fields.map((f) => [f.field, { from: f.from, to: f.to }])),
      risks: change.risks,
      risky: change.risks.length > 0,
    })),
    warnings: plan.warnings,
    ignored: plan.ignored,
    unmanaged: plan.unmanaged,
  };
}
