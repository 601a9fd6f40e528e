import type { DesiredState, WebsiteWrite, WritableField } from '../model/index.js';
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
 * taken from the environment (through the manifest). Only call it on a plan that is not stale: then
 * the password's HMAC matches the one planned.
 */
export function planFromSaved(file: SavedPlanFile, desired: DesiredState, accountSize: number): Plan {
  const passwords = new Map(desired.websites.map((w) => [w.domain, w.password]));
  const changes = file.saved_plan.operations.map((op, index) => {
    // parseSavedPlan checked that changes and operations are aligned.
    const shown = file.changes[index]!;
    return toChange(op, shown, passwords.get(op.domain));
  });
  return {
    ...emptyPlan(accountSize),
    changes,
    unchanged: file.summary.unchanged,
    ignored: [...file.ignored],
    unmanaged: [...file.unmanaged],
    // Shown again as saved; a saved plan sends only its operations and records no lifecycle change.
    pendingDeletes: file.pending_deletes.map((pending) => ({ ...pending })),
    protected: file.protected.map((kept) => kept.domain),
  };
}

function toChange(op: SavedOperation, shown: JsonChange, password: string | undefined): Change {
  const fields = Object.entries(shown.fields).map(
    ([field, json]): FieldChange => fromJsonField(field as WritableField, json),
  );
  const base = { domain: op.domain, fields, risks: [...shown.risks] };
  if (op.action === 'delete') return { kind: 'delete', id: op.id!, ...base };
  const send = toWrite(op.send ?? {}, password);
  return op.action === 'create'
    ? { kind: 'create', send, ...base }
    : { kind: 'update', id: op.id!, send, ...base };
}

function toWrite(saved: SavedSend, password: string | undefined): WebsiteWrite {
  const { password: marker, ...settings } = saved;
  return { ...settings, ...(marker !== undefined && password !== undefined ? { password } : {}) };
}
