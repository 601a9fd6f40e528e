import type { SettingField, WebsiteId } from '../model/index.js';
import { type JsonGuards, type JsonTraffic, jsonChangeGuards, jsonGuards } from './render-json-guards.js';
import { KEPT_PROTECTED } from './render-lifecycle.js';
import {
  type Change,
  domainsWithControls,
  type FieldChange,
  isResendOnly,
  PASSWORD_SET,
  type Plan,
  type PlanSummary,
  type Risk,
  SENSITIVE,
  type Shown,
  summarise,
  UNREADABLE,
} from './types.js';

// The documented, stable JSON plan (README "JSON plan format"). Bump FORMAT_VERSION on any change
// that could break a consumer; adding keys is not such a change.
//
// Version 2: a field's `from` and `to` hold only real values of the field's type (or null); a value
// that is secret or cannot be read is null with a flag beside it, as Terraform's plan JSON has
// `before_sensitive` and `after_unknown`, instead of a placeholder string where a list is expected.

export const FORMAT_VERSION = 2;

/** Real values only; what is hidden or unknown is flagged, never spelled into the value. */
export interface JsonField {
  from: Shown;
  to: Shown;
  /** The current value is a secret (a password): `from` is null. */
  from_sensitive: boolean;
  /** The new value is a secret: `to` is null. */
  to_sensitive: boolean;
  /** The service does not return the current value: `from` is null. */
  from_unknown: boolean;
  /** Sent only because no earlier run recorded it (a first run, a lost state file): not drift. */
  resend: boolean;
}

export interface JsonChange {
  action: Change['kind'];
  id: WebsiteId | null;
  domain: string;
  /** For a delete, the settings it destroys (`to` null). */
  fields: Record<string, JsonField>;
  risks: Risk[];
  risky: boolean;
  /** Every field is only (re)sent because its current value is unknown. */
  resend_only: boolean;
  /** A delete's visitors over the traffic window, when the traffic guard read them. */
  traffic?: JsonTraffic;
  /** A create beyond the account's plan limit: not sent. */
  unfit?: true;
}

/** Where a plan comes from: the CLI adds it; the daemon's log lines and tests may leave it out. */
export interface PlanOrigin {
  version: string;
  baseUrl: string;
  manifest: string;
}

export interface JsonPlan extends JsonGuards {
  format_version: typeof FORMAT_VERSION;
  /** The tool that computed the plan. */
  tool?: { name: 'websites-sync'; version: string };
  base_url?: string;
  manifest?: string;
  /** `domains_with_controls`: names shown escaped in the text and Markdown plans (present when any). */
  summary: PlanSummary & { domains_with_controls?: number };
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
  /** `--adopt`: websites whose write-only fields are recorded as declared, not sent (present when any). */
  adopted?: Array<{ id: WebsiteId; domain: string; fields: string[] }>;
  /**
   * Write-only fields not declared and never sent, left as the service holds them: field → how many
   * websites (present when any).
   */
  write_only_kept?: Partial<Record<SettingField, number>>;
}

/** The summary, with how many names hold control characters when any do (`domainsWithControls`). */
function jsonSummary(plan: Plan): JsonPlan['summary'] {
  const controls = domainsWithControls(plan).length;
  return { ...summarise(plan), ...(controls > 0 ? { domains_with_controls: controls } : {}) };
}

export function toJsonPlan(plan: Plan, origin?: PlanOrigin): JsonPlan {
  return {
    format_version: FORMAT_VERSION,
    ...(origin
      ? {
          tool: { name: 'websites-sync', version: origin.version },
          base_url: origin.baseUrl,
          manifest: origin.manifest,
        }
      : {}),
    summary: jsonSummary(plan),
    changes: plan.changes.map((change) => toJsonChange(change, plan.trafficWindowDays)),
    warnings: plan.warnings,
    ignored: plan.ignored,
    unmanaged: plan.unmanaged,
    observed: plan.observed.map((change) => toJsonChange(change, undefined)),
    pending_deletes: plan.pendingDeletes.map(({ id, domain, since, due }) => ({ id, domain, since, due })),
    protected: plan.protected.map((domain) => ({ domain, reason: KEPT_PROTECTED })),
    ...jsonGuards(plan),
    // The field names only: `values` holds passwords in clear.
    ...(plan.adopted.length > 0
      ? {
          adopted: plan.adopted.map(({ id, domain, values }) => ({
            id,
            domain,
            fields: Object.keys(values),
          })),
        }
      : {}),
    ...(plan.keptWriteOnly ? { write_only_kept: { ...plan.keptWriteOnly } } : {}),
  };
}

function toJsonChange(change: Change, windowDays: number | undefined): JsonChange {
  return {
    action: change.kind,
    id: change.kind === 'create' ? null : change.id,
    domain: change.domain,
    // Built from the display values only: `send` (which holds passwords in clear) is never read here.
    fields: Object.fromEntries(change.fields.map((f) => [f.field, toJsonField(f)])),
    risks: change.risks,
    risky: change.risks.length > 0,
    resend_only: isResendOnly(change),
    ...jsonChangeGuards(change, windowDays),
  };
}

const SECRET = new Set<Shown>([SENSITIVE, PASSWORD_SET]);

function toJsonField(field: FieldChange): JsonField {
  const hidden = (value: Shown) => SECRET.has(value) || value === UNREADABLE;
  return {
    from: hidden(field.from) ? null : field.from,
    to: hidden(field.to) ? null : field.to,
    from_sensitive: SECRET.has(field.from),
    to_sensitive: SECRET.has(field.to),
    from_unknown: field.from === UNREADABLE,
    resend: field.unknown === true,
  };
}

/** The display values of a field of a JSON plan (a saved plan shown again). */
export function fromJsonField(name: FieldChange['field'], json: JsonField): FieldChange {
  const from = json.from_sensitive ? SENSITIVE : json.from_unknown ? UNREADABLE : json.from;
  const field: FieldChange = { field: name, from, to: json.to_sensitive ? SENSITIVE : json.to };
  if (json.resend) field.unknown = true;
  return field;
}
