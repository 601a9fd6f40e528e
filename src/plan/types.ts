import {
  hasControls,
  type PlanLimit,
  type SettingField,
  type TrafficReading,
  type WebsiteId,
  type WebsiteWrite,
  type WritableField,
} from '../model/index.js';
import type { LifecycleUpdate } from '../state/index.js';

// The plan is plain, ordered data: dry-run renders it, apply executes the very same object.

/** How a value is shown in plans: never a secret. */
export type Shown = boolean | number | string | string[] | null;

export const SENSITIVE = '(sensitive)';
export const UNREADABLE = '(not readable from the service)';

/** A password the service says is set: shown without being known. */
export const PASSWORD_SET = '(set)';

export interface FieldChange {
  field: WritableField;
  from: Shown;
  to: Shown;
  /**
   * Sent only because its current value is unknown: the service does not return it and no earlier run
   * recorded what it sent (a first run, a lost state file). Not drift.
   */
  unknown?: boolean;
}

/** Changes that expose data or destroy it: they stand out in every format. */
export type Risk = 'delete' | 'privacy-public' | 'password-removed' | 'bot-exclusion-off';

export const RISK_LABELS: Record<Risk, string> = {
  delete: 'deletes the website and its statistics',
  'privacy-public': 'statistics become public',
  'password-removed': 'password protection removed',
  'bot-exclusion-off': 'bot exclusion turned off',
};

/** The changes that carry at least one risk, in plan order. */
export function riskyChanges(plan: Plan): Change[] {
  return plan.changes.filter((change) => change.risks.length > 0);
}

interface ChangeBase {
  domain: string;
  fields: FieldChange[];
  risks: Risk[];
}

export interface CreateChange extends ChangeBase {
  kind: 'create';
  /** Everything to send; the password in clear, so a plan is never serialised as is. */
  send: WebsiteWrite;
  /**
   * The name to send when the service stores it as another (`domain`): the entry's name before the
   * service's `www.` rule. The rule is not idempotent, so sending `domain` could store a third name.
   */
  written?: string;
  /** `protect: true`: the new id is remembered as protected as soon as it is known. */
  protect?: boolean;
  /** `ignore_fields`: never sent, not even when a create turns into adopting a website found on the account. */
  ignoreFields?: readonly WritableField[];
  /** Beyond the account's plan limit (after the plan's deletes): not sent; apply reports it not created. */
  unfit?: true;
  /**
   * Settings the manifest does not declare: when a create turns into adopting a website found on the
   * account, the write-only ones it does not show are left as the service holds them.
   */
  undeclared?: readonly SettingField[];
}

export interface UpdateChange extends ChangeBase {
  kind: 'update';
  id: WebsiteId;
  /** Only the fields that differ; never the domain. */
  send: WebsiteWrite;
}

export interface DeleteChange extends ChangeBase {
  kind: 'delete';
  id: WebsiteId;
  /** The website's visitors over the traffic window, when the traffic guard read them. */
  traffic?: DeleteTraffic;
}

/** What the traffic guard read before a delete, and what let the delete through despite visitors. */
export type DeleteTraffic = TrafficReading & { allowedBy?: 'allow_delete_with_traffic' | '--force' };

/** A delete the traffic guard refused: the website had visitors in the window (or `strict`: unknown). */
export interface TrafficRefusal {
  id: WebsiteId;
  domain: string;
  traffic: TrafficReading;
}

/** The account's plan limit and what the plan leaves of it (`/api/v1/account`). */
export interface Capacity {
  limit: PlanLimit;
  /** Websites on the account now. */
  now: number;
  /** Websites on the account once the plan is applied (the creates that do not fit left out). */
  after: number;
  /** Creates beyond the limit: marked `unfit`, not sent. */
  unfit: number;
}

export type Change = CreateChange | UpdateChange | DeleteChange;

/** Deletes first (frees plan-limit room), then updates, then creates. */
export const ACTION_ORDER: Record<Change['kind'], number> = { delete: 0, update: 1, create: 2 };

/** A delete that `delete_delay` holds back: shown in plans, not sent until it is due. */
export interface PendingDelete {
  id: WebsiteId;
  domain: string;
  /** ISO 8601: since when every run has planned this delete. */
  since: string;
  /** ISO 8601: from when the delete is sent. */
  due: string;
}

/**
 * `--adopt`: a website already on the account whose write-only fields are unknown (no state yet). They
 * are assumed to match the manifest and recorded, not sent. `values` holds the password in clear, so
 * it is never serialised (plans show only the field names).
 */
export interface AdoptedWebsite {
  id: WebsiteId;
  domain: string;
  values: WebsiteWrite;
}

export interface Plan {
  changes: Change[];
  /** `--adopt`: websites whose write-only fields are recorded as declared instead of sent. */
  adopted: AdoptedWebsite[];
  /** Drift of websites marked `observe: true`: shown and counted, never applied. */
  observed: Change[];
  /** Websites prune would delete, kept because they are protected. */
  protected: string[];
  /** Deletes waiting for `delete_delay`. */
  pendingDeletes: PendingDelete[];
  /** What the state must remember after this run (protection, since when deletes are planned). */
  remember: LifecycleUpdate;
  /** Listed websites that already match. */
  unchanged: number;
  /** Account websites matched by an `ignore` pattern: never touched. */
  ignored: string[];
  /** Account websites not in the manifest, left alone because prune is off. */
  unmanaged: string[];
  /** How many websites the account has (for the mass-delete guard). */
  accountSize: number;
  warnings: string[];
  /** Deletes the traffic guard refused; the rest of the plan goes ahead. */
  trafficRefused: TrafficRefusal[];
  /** The traffic guard's window in days, when it ran (absent: off, or not run). */
  trafficWindowDays?: number;
  /** The account's plan limit and what the plan leaves, when it was asked for. */
  capacity?: Capacity;
  /**
   * Write-only fields (the service does not return them) that the manifest does not declare and
   * websites-sync never sent, by field: left as the service holds them, how many websites each.
   */
  keptWriteOnly?: Partial<Record<SettingField, number>>;
}

export interface PlanSummary {
  create: number;
  update: number;
  /**
   * Of the updates, those that only (re)send write-only fields the service never returns (no state
   * yet, or a lost one): nothing is known to differ, so they are not drift.
   */
  resend: number;
  delete: number;
  unchanged: number;
  /** Observed websites that drifted (shown, not applied). */
  observed: number;
  /** Deletes held back by `delete_delay`. */
  pending_delete: number;
  /** Deletes prevented by `protect`. */
  protected: number;
  /** Deletes the traffic guard refused (the website had visitors, or `strict` and unknown). */
  traffic_refused: number;
  /** Creates beyond the account's plan limit: not sent. */
  unfit: number;
}

export function summarise(plan: Plan): PlanSummary {
  const summary = {
    create: 0,
    update: 0,
    resend: 0,
    delete: 0,
    unchanged: plan.unchanged,
    observed: plan.observed.length,
    pending_delete: plan.pendingDeletes.length,
    protected: plan.protected.length,
    traffic_refused: plan.trafficRefused.length,
    unfit: plan.capacity?.unfit ?? 0,
  };
  for (const change of plan.changes) {
    summary[change.kind]++;
    if (isResendOnly(change)) summary.resend++;
  }
  return summary;
}

/**
 * The names in a plan that hold a control, bidirectional or zero-width character (a record the service
 * stored so): every output shows them escaped, and says so, so that a reader knows the odd `\x1b` in a
 * name is in the name.
 */
export function domainsWithControls(plan: Plan): string[] {
  const names = new Set<string>();
  const add = (domain: string) => {
    if (hasControls(domain)) names.add(domain);
  };
  for (const change of [...plan.changes, ...plan.observed]) add(change.domain);
  for (const pending of [...plan.pendingDeletes, ...plan.trafficRefused]) add(pending.domain);
  for (const website of plan.adopted) add(website.domain);
  for (const domain of [...plan.protected, ...plan.ignored, ...plan.unmanaged]) add(domain);
  return [...names];
}

/** The summary's note on `domainsWithControls` ('' when there is none). */
export function controlsNote(plan: Plan): string {
  const count = domainsWithControls(plan).length;
  if (count === 0) return '';
  return count === 1
    ? ' 1 domain contains control characters, shown escaped.'
    : ` ${count} domains contain control characters, shown escaped.`;
}

/** An update whose every field is only (re)sent because its current value is unknown: not drift. */
export function isResendOnly(change: Change): boolean {
  return (
    change.kind === 'update' && change.fields.length > 0 && change.fields.every((f) => f.unknown === true)
  );
}

/** A plan of no change: the base every plan builder starts from. */
export function emptyPlan(accountSize: number): Plan {
  return {
    changes: [],
    adopted: [],
    observed: [],
    protected: [],
    pendingDeletes: [],
    remember: { protect: [], unprotect: [], deleting: [] },
    unchanged: 0,
    ignored: [],
    unmanaged: [],
    accountSize,
    warnings: [],
    trafficRefused: [],
  };
}
