import picomatch from 'picomatch';
import {
  type DesiredState,
  type DesiredWebsite,
  type RemoteWebsite,
  SETTING_FIELDS,
  type WebsiteWrite,
  websiteKey,
} from '../model/index.js';
import type { StateData } from '../state/index.js';
import { comparePassword, compareSetting, settingDiffers, showSetting } from './compare.js';
import {
  ACTION_ORDER,
  type Change,
  type CreateChange,
  type DeleteChange,
  type FieldChange,
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
}

/** Pure: (desired, current, state) → Plan. No I/O, no clock, no randomness. */
export function computePlan(input: PlanInput): Plan {
  const { desired, current, state, prune } = input;
  const isIgnored =
    desired.ignore.length > 0 ? picomatch(desired.ignore, { nocase: true, dot: true }) : () => false;
  const remoteByKey = new Map<string, RemoteWebsite>();
  for (const record of current) remoteByKey.set(websiteKey(record.domain), record);

  const plan: Plan = {
    changes: [],
    unchanged: 0,
    ignored: [],
    unmanaged: [],
    accountSize: current.length,
    warnings: [],
  };
  let matched = 0;
  for (const website of desired.websites) {
    const remote = remoteByKey.get(website.domain);
    if (remote) matched++;
    const change = remote ? planUpdate(website, remote, state) : planCreate(website);
    if (change) plan.changes.push(change);
    else plan.unchanged++;
  }
  // Listed domains are unique, so when every record was matched none is left to ignore or delete.
  const listed = matched < remoteByKey.size ? new Set(desired.websites.map((w) => w.domain)) : undefined;
  for (const [key, record] of listed ? remoteByKey : []) {
    if (listed?.has(key)) continue;
    if (isIgnored(key)) plan.ignored.push(record.domain);
    else if (prune) plan.changes.push(planDelete(record));
    else plan.unmanaged.push(record.domain);
  }
  plan.changes.sort(
    (a, b) => ACTION_ORDER[a.kind] - ACTION_ORDER[b.kind] || a.domain.localeCompare(b.domain),
  );
  plan.ignored.sort();
  plan.unmanaged.sort();
  return plan;
}

function planCreate(website: DesiredWebsite): CreateChange {
  const send: WebsiteWrite = {};
  const fields: FieldChange[] = [];
  for (const field of SETTING_FIELDS) {
    const value = website[field];
    // Empty lists are the create default; leaving them out keeps the store request small.
    if (Array.isArray(value) && value.length === 0) continue;
    Object.assign(send, { [field]: value });
    fields.push({ field, from: null, to: showSetting(field, value) });
  }
  if (website.privacy === 2 && website.password !== undefined) {
    send.password = website.password;
    fields.push({ field: 'password', from: null, to: SENSITIVE });
  }
  return { kind: 'create', domain: website.domain, send, fields, risks: [] };
}

function planUpdate(
  website: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
): UpdateChange | undefined {
  // Built only once something differs: a converged plan runs this for every website of the account.
  let send: WebsiteWrite | undefined;
  let fields: FieldChange[] | undefined;
  for (const field of SETTING_FIELDS) {
    if (!settingDiffers(field, website, remote, state)) continue;
    const verdict = compareSetting(field, website, remote, state);
    send ??= {};
    fields ??= [];
    Object.assign(send, { [field]: website[field] });
    fields.push({ field, from: verdict.from, to: showSetting(field, website[field]) });
  }
  // The service requires the password whenever privacy is set to 2, so both travel together.
  if (website.privacy === 2 && website.password !== undefined) {
    const password = comparePassword(website, remote, state);
    if (password.differs || send?.privacy === 2) {
      send ??= {};
      fields ??= [];
      send.password = website.password;
      fields.push({ field: 'password', from: password.from, to: SENSITIVE });
    }
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

function updateRisks(remote: RemoteWebsite, send: WebsiteWrite): Risk[] {
  const risks: Risk[] = [];
  if (send.privacy === 0) risks.push('privacy-public');
  if (send.privacy !== undefined && send.privacy !== 2 && remote.privacy === 2)
    risks.push('password-removed');
  if (send.exclude_bots === false) risks.push('bot-exclusion-off');
  return risks;
}

function planDelete(record: RemoteWebsite): DeleteChange {
  return { kind: 'delete', id: record.id, domain: record.domain, fields: [], risks: ['delete'] };
}

/** The changes of one kind, in plan order. */
export function changesOf<K extends Change['kind']>(plan: Plan, kind: K): Extract<Change, { kind: K }>[] {
  return plan.changes.filter((c): c is Extract<Change, { kind: K }> => c.kind === kind);
}
