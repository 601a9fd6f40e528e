import { randomBytes } from 'node:crypto';
import type { DesiredState, RemoteWebsite } from '../model/index.js';
import { websiteKey } from '../model/index.js';
import { type Change, type Plan, SENSITIVE, toJsonPlan } from '../plan/index.js';
import { fingerprintKey } from '../state/index.js';
import { desiredHashes, passwordHmacs, recordHash } from './fingerprint.js';
import {
  SAVED_PLAN_VERSION,
  type SavedOperation,
  type SavedPlanFile,
  type SavedRecord,
  type SavedSend,
} from './format.js';

export interface SaveInput {
  plan: Plan;
  desired: DesiredState;
  /** The listing the plan was computed from. */
  current: readonly RemoteWebsite[];
  baseUrl: string;
  version: string;
  prune: boolean;
  force: boolean;
  salt: string;
  /** Keys the password HMACs with the salt (derived from the API key; never written). */
  secret: string;
  now: Date;
}

/** A fresh random salt for a plan's password HMACs. */
export function newSalt(): string {
  return randomBytes(16).toString('hex');
}

/** Pure: the plan and everything it depends on, without any secret. */
export function buildSavedPlan(input: SaveInput): SavedPlanFile {
  const { plan, desired, current } = input;
  const byId = new Map(current.map((record) => [record.id, record]));
  // Built from entries, not by assignment: an id is any string, `__proto__` included.
  const records: Record<string, SavedRecord> = Object.fromEntries(
    plan.changes.flatMap((change) => {
      const record = change.kind === 'create' ? undefined : byId.get(change.id);
      return record ? [[String(record.id), { domain: record.domain, sha256: recordHash(record) }]] : [];
    }),
  );
  const deletes = plan.changes.filter((c) => c.kind === 'delete');
  // Refused by the traffic guard, they are still unlisted: a fresh plan plans them, and refuses them.
  const unlisted = [...deletes, ...plan.trafficRefused, ...plan.pendingDeletes];
  return {
    ...toJsonPlan(plan, { version: input.version, baseUrl: input.baseUrl, manifest: desired.file }),
    saved_plan: {
      version: SAVED_PLAN_VERSION,
      tool_version: input.version,
      created_at: input.now.toISOString(),
      base_url: input.baseUrl,
      manifest: desired.file,
      prune: input.prune,
      force: input.force,
      salt: input.salt,
      desired: {
        ...desiredHashes(desired),
        passwords: passwordHmacs(desired, fingerprintKey(input.secret, input.salt)),
      },
      remote: {
        records,
        absent: plan.changes.filter((c) => c.kind === 'create').map((c) => c.domain),
        // With prune on, every unlisted, non-ignored and unprotected website is a delete, due now or held
        // back by delete_delay: together they are that set.
        unlisted:
          deletes.length + plan.trafficRefused.length > 0
            ? unlisted.map((c) => websiteKey(c.domain)).sort()
            : null,
        ...(plan.trafficWindowDays === undefined ? {} : { traffic: savedTraffic(plan) }),
      },
      operations: plan.changes.map(toOperation),
    },
  };
}

/** Each delete's visitors as the reviewer saw them, by id (null: unknown). */
function savedTraffic(plan: Plan): Record<string, number | null> {
  return Object.fromEntries(
    plan.changes.flatMap((c) =>
      c.kind === 'delete' && c.traffic
        ? [[String(c.id), c.traffic.kind === 'known' ? c.traffic.visitors : null]]
        : [],
    ),
  );
}

/** A change as a saved plan records it: what is sent, the password only as a marker. */
export function toOperation(change: Change): SavedOperation {
  if (change.kind === 'delete') return { action: 'delete', id: change.id, domain: change.domain, send: null };
  // The password is taken out of `send` here, the one place a plan is serialised with its operations.
  const { password, ...settings } = change.send;
  const send: SavedSend = { ...settings, ...(password === undefined ? {} : { password: SENSITIVE }) };
  return {
    action: change.kind,
    id: change.kind === 'create' ? null : change.id,
    domain: change.domain,
    send,
  };
}
