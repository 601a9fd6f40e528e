import type { DesiredState, DesiredWebsite, WebsiteWrite, WritableField } from '../model/index.js';
import {
  type Change,
  emptyPlan,
  type FieldChange,
  fromJsonField,
  type JsonChange,
  type Plan,
} from '../plan/index.js';
import type { SavedOperation, SavedPlanFile, SavedSend } from './format.js';

/**
 * The saved operations as a Plan that apply can execute: exactly what was saved, with each password
 * taken from the environment (through the manifest), and what the manifest says of a create beyond its
 * values (`protect`, `ignore_fields`). Only call it on a plan that is not stale: then the password's
 * HMAC matches the one planned, and the manifest is the one planned from. What the state must remember
 * is the caller's to add (the fresh plan's, which agrees with this one).
 */
export function planFromSaved(file: SavedPlanFile, desired: DesiredState, accountSize: number): Plan {
  const declared = new Map(desired.websites.map((w) => [w.domain, w]));
  const changes = file.saved_plan.operations.map((op, index) => {
    // parseSavedPlan checked that changes and operations are aligned.
    const shown = file.changes[index]!;
    return toChange(op, shown, declared.get(op.domain));
  });
  return {
    ...emptyPlan(accountSize),
    changes,
    unchanged: file.summary.unchanged,
    ignored: [...file.ignored],
    unmanaged: [...file.unmanaged],
    // Shown again as saved.
    pendingDeletes: file.pending_deletes.map((pending) => ({ ...pending })),
    protected: file.protected.map((kept) => kept.domain),
  };
}

function toChange(op: SavedOperation, shown: JsonChange, website: DesiredWebsite | undefined): Change {
  const fields = Object.entries(shown.fields).map(
    ([field, json]): FieldChange => fromJsonField(field as WritableField, json),
  );
  const base = { domain: op.domain, fields, risks: [...shown.risks] };
  if (op.action === 'delete') return { kind: 'delete', id: op.id!, ...base };
  const send = toWrite(op.send ?? {}, website?.password);
  if (op.action === 'update') return { kind: 'update', id: op.id!, send, ...base };
  return {
    kind: 'create',
    send,
    ...base,
    ...(website?.protect ? { protect: true } : {}),
    ...(website?.ignoreFields?.length ? { ignoreFields: website.ignoreFields } : {}),
    ...(website?.undeclared ? { undeclared: website.undeclared } : {}),
  };
}

function toWrite(saved: SavedSend, password: string | undefined): WebsiteWrite {
  const { password: marker, ...settings } = saved;
  return { ...settings, ...(marker !== undefined && password !== undefined ? { password } : {}) };
}
