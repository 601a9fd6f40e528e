import {
  compareText,
  compileIgnore,
  type DesiredState,
  type DesiredWebsite,
  matchWebsites,
  type RemoteWebsite,
  SETTING_FIELDS,
  type WebsiteWrite,
  type WritableField,
  websiteKey,
} from '../model/index.js';
import type { MissingState, StateData } from '../state/index.js';
import {
  comparePassword,
  compareSetting,
  countKeptWriteOnly,
  settingDiffers,
  showSetting,
} from './compare.js';
import { observedDrift, planPrune, rememberProtection, warnNoState } from './lifecycle.js';
import { rememberRekeyed } from './rekey.js';
import { keepTwin, keepUnlistedTwins, managedRecords } from './twins.js';
import {
  ACTION_ORDER,
  type Change,
  type CreateChange,
  emptyPlan,
  type FieldChange,
  PASSWORD_SET,
  type Plan,
  type Risk,
  SENSITIVE,
  type UpdateChange,
} from './types.js';

export interface PlanInput {
  desired: DesiredState;
  current: readonly RemoteWebsite[];
  state: StateData;
  /** Deletes allowed (manifest `prune: true` or `--prune`). */
  prune: boolean;
  /** How long a delete must be planned, run after run, before it is sent (default 0: at once). */
  deleteDelayMs?: number;
  /** The clock, passed in (milliseconds since the epoch); needed only with a delete delay. */
  now?: number;
  /**
   * `--adopt`: write-only fields never recorded for a website already on the account are assumed to
   * hold the declared values (recorded, not sent).
   */
  adopt?: boolean;
  /** Where the state was looked for, when there is none: a plan that deletes says so. */
  noState?: MissingState;
}

/** Pure: (desired, current, state, now) → Plan. No I/O, no clock of its own, no randomness. */
export function computePlan(input: PlanInput): Plan {
  const { desired, current, state, prune } = input;
  const deleteDelayMs = input.deleteDelayMs ?? 0;
  if (deleteDelayMs > 0 && input.now === undefined)
    throw new Error('computePlan: a delete delay needs `now`');
  const rules = { state, now: input.now ?? 0, deleteDelayMs };
  const ignore = compileIgnore(desired.ignore);
  const remotes = matchWebsites(desired.websites, current);
  const collides = collisions(desired.websites, current);
  const managedRecord = managedRecords(desired.websites, remotes);

  const plan = emptyPlan(current.length);
  let matched = 0;
  for (const [index, website] of desired.websites.entries()) {
    const remote = remotes.recordOf(index);
    if (remote) {
      matched++;
      rememberProtection(website, remote, plan);
      countKeptWriteOnly(website, remote, input.state, plan);
      rememberRekeyed(website, remote, input.state, plan);
    }
    if (!remote && collides(website)) {
      plan.warnings.push(
        `${website.writtenDomain} is not created: the service would store it as ${website.domain}, which is listed or on the account already; list ${website.writtenDomain} only for a record stored under that name`,
      );
      continue;
    }
    const change = planWebsite(website, remote, input, plan);
    if (!change) plan.unchanged++;
    else if (website.observe) plan.observed.push(change);
    else plan.changes.push(change);
  }
  // Listed domains are unique, so when every record was matched none is left to ignore or delete.
  const used = new Set<number>();
  for (const record of matched < current.length ? current : []) {
    if (remotes.isMatched(record)) continue;
    const patterns = desired.ignore.length > 0 ? ignore.matchAll(record.domain) : [];
    for (const index of patterns) used.add(index);
    const twin = patterns.length > 0 ? undefined : remotes.twinOf(record);
    if (twin !== undefined) keepTwin({ record, listed: twin, managed: managedRecord(twin) }, prune, plan);
    else if (patterns.length > 0) plan.ignored.push(record.domain);
    else if (prune) pruneUnlisted(record, remotes.unlistedTwinsOf(record), rules, plan);
    else plan.unmanaged.push(record.domain);
  }
  warnUnusedPatterns(desired.ignore, used, plan);
  warnNoState(plan, input.noState);
  const byAction = (a: Change, b: Change) =>
    ACTION_ORDER[a.kind] - ACTION_ORDER[b.kind] || compareText(a.domain, b.domain);
  plan.changes.sort(byAction);
  plan.observed.sort(byAction);
  plan.pendingDeletes.sort((a, b) => compareText(a.domain, b.domain));
  plan.protected.sort();
  plan.ignored.sort();
  plan.unmanaged.sort();
  return plan;
}

/** A record no entry takes, with prune: deleted, unless it shares its name with others (twins, kept). */
function pruneUnlisted(
  record: RemoteWebsite,
  twins: readonly RemoteWebsite[],
  rules: Parameters<typeof planPrune>[1],
  plan: Plan,
): void {
  if (twins.length > 0) keepUnlistedTwins(record, twins, plan);
  else planPrune(record, rules, plan);
}

/**
 * Whether a create under a written name would be stored as another entry's domain, or a record's. The
 * names are indexed once, on first need: a plan of many `www.` creates stays linear.
 */
function collisions(listed: readonly DesiredWebsite[], current: readonly RemoteWebsite[]) {
  let names: { entries: Map<string, number>; account: Set<string> } | undefined;
  return (website: DesiredWebsite): boolean => {
    if (website.writtenDomain === undefined) return false;
    if (names === undefined) {
      const entries = new Map<string, number>();
      for (const { domain } of listed) entries.set(domain, (entries.get(domain) ?? 0) + 1);
      names = { entries, account: new Set(current.map((record) => websiteKey(record.domain))) };
    }
    return (names.entries.get(website.domain) ?? 0) > 1 || names.account.has(website.domain);
  };
}

/** A pattern that protects nothing is most often a typo in a protection: say so. */
function warnUnusedPatterns(patterns: readonly string[], used: ReadonlySet<number>, plan: Plan): void {
  patterns.forEach((pattern, index) => {
    if (used.has(index)) return;
    plan.warnings.push(
      `ignore pattern "${pattern}" (ignore[${index}]) matches no website of the account and no listed domain; check it for a typo`,
    );
  });
}

const NOTHING_IGNORED: readonly WritableField[] = [];

/** `ignore_fields`: owned by someone else, so never compared, shown or sent. */
function ignoredOf(website: DesiredWebsite): readonly WritableField[] {
  return website.ignoreFields ?? NOTHING_IGNORED;
}

/** A listed website: created, updated (with `--adopt`, less what it adopts), or only observed. */
function planWebsite(
  website: DesiredWebsite,
  remote: RemoteWebsite | undefined,
  input: PlanInput,
  plan: Plan,
): Change | undefined {
  if (!remote) return planCreate(website);
  const change = planUpdate(website, remote, input.state);
  if (!change) return undefined;
  if (website.observe) return observedDrift(change, comparePassword(website, remote, input.state));
  return input.adopt ? adoptUnknown(change, website, plan) : change;
}

function planCreate(website: DesiredWebsite): CreateChange {
  const send: WebsiteWrite = {};
  const fields: FieldChange[] = [];
  const ignored = ignoredOf(website);
  for (const field of SETTING_FIELDS) {
    if (ignored.includes(field)) continue;
    const value = website[field];
    // Empty lists are the create default; leaving them out keeps the store request small.
    if (Array.isArray(value) && value.length === 0) continue;
    Object.assign(send, { [field]: value });
    fields.push({ field, from: null, to: showSetting(field, value) });
  }
  if (website.privacy === 2 && website.password !== undefined && !ignored.includes('password')) {
    send.password = website.password;
    fields.push({ field: 'password', from: null, to: SENSITIVE });
  }
  const change: CreateChange = { kind: 'create', domain: website.domain, send, fields, risks: [] };
  if (website.writtenDomain !== undefined) change.written = website.writtenDomain;
  if (website.protect) change.protect = true;
  if (ignored.length > 0) change.ignoreFields = ignored;
  if (website.undeclared !== undefined) change.undeclared = website.undeclared;
  return change;
}

function planUpdate(
  website: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
): UpdateChange | undefined {
  // Built only once something differs: a converged plan runs this for every website of the account.
  let send: WebsiteWrite | undefined;
  let fields: FieldChange[] | undefined;
  const ignored = ignoredOf(website);
  for (const field of SETTING_FIELDS) {
    if (ignored.includes(field) || !settingDiffers(field, website, remote, state)) continue;
    const verdict = compareSetting(field, website, remote, state);
    send ??= {};
    fields ??= [];
    Object.assign(send, { [field]: website[field] });
    const shown: FieldChange = { field, from: verdict.from, to: showSetting(field, website[field]) };
    if (verdict.unknown) shown.unknown = true;
    fields.push(shown);
  }
  // The service requires the password whenever privacy is set to 2, so both travel together.
  if (website.privacy === 2 && website.password !== undefined && !ignored.includes('password')) {
    const password = comparePassword(website, remote, state);
    if (password.differs || send?.privacy === 2) {
      send ??= {};
      fields ??= [];
      send.password = website.password;
      fields.push({
        field: 'password',
        from: password.from,
        to: SENSITIVE,
        ...(password.unknown && send.privacy !== 2 ? { unknown: true } : {}),
      });
    }
  }
  if (hasStalePassword(website, remote, ignored)) {
    send ??= {};
    fields ??= [];
    send.password = '';
    send.privacy = website.privacy;
    fields.push({ field: 'password', from: PASSWORD_SET, to: null });
  }
  if (!send || !fields) return undefined;
  return {
    kind: 'update',
    id: remote.id,
    domain: website.domain,
    send,
    fields,
    risks: updateRisks(remote, send),
  };
}

/**
 * A password left over from an earlier privacy 2: the service keeps it, and switching back to 2 (from
 * the web UI or a manifest) would silently re-enable it. It is cleared with `password=` (null after the
 * service's middleware), which the service accepts only beside privacy 0 or 1.
 */
function hasStalePassword(
  website: DesiredWebsite,
  remote: RemoteWebsite,
  ignored: readonly WritableField[],
): boolean {
  return (
    website.privacy !== 2 &&
    remote.hasPassword === true &&
    !ignored.includes('password') &&
    !ignored.includes('privacy')
  );
}

/**
 * `--adopt`: the fields sent only because their value is unknown are taken out of the update and
 * recorded as declared instead; what remains (readable fields that differ) is still updated.
 */
function adoptUnknown(change: UpdateChange, website: DesiredWebsite, plan: Plan): UpdateChange | undefined {
  const unknown = change.fields.filter((field) => field.unknown);
  if (unknown.length === 0) return change;
  const values: WebsiteWrite = {};
  const send: WebsiteWrite = { ...change.send };
  for (const { field } of unknown) {
    Object.assign(values, { [field]: website[field] });
    delete send[field];
  }
  plan.adopted.push({ id: change.id, domain: change.domain, values });
  const fields = change.fields.filter((field) => !field.unknown);
  return fields.length === 0 ? undefined : { ...change, send, fields };
}

function updateRisks(remote: RemoteWebsite, send: WebsiteWrite): Risk[] {
  const risks: Risk[] = [];
  if (send.privacy === 0 && remote.privacy !== 0) risks.push('privacy-public');
  if (send.privacy !== undefined && send.privacy !== 2 && remote.privacy === 2)
    risks.push('password-removed');
  if (send.exclude_bots === false) risks.push('bot-exclusion-off');
  return risks;
}

/** The changes of one kind, in plan order. */
export function changesOf<K extends Change['kind']>(plan: Plan, kind: K): Extract<Change, { kind: K }>[] {
  return plan.changes.filter((c): c is Extract<Change, { kind: K }> => c.kind === kind);
}
