import { colored, oneLineValue } from '../model/index.js';
import { changeGuardNote, guardNotes, refusalLines } from './render-guards.js';
import {
  adoptedNote,
  heldBackSummary,
  KEPT_PROTECTED,
  keptWriteOnlyNote,
  OBSERVED_NOTE,
  pendingText,
} from './render-lifecycle.js';
import {
  type Change,
  controlsNote,
  type FieldChange,
  type Plan,
  RISK_LABELS,
  type Shown,
  summarise,
} from './types.js';

// Terraform-like: `+` create, `~` update (field: old → new), `-` delete, then a summary line.

export interface TextOptions {
  /** ANSI colours: only on a TTY and without NO_COLOR; the caller decides. */
  color: boolean;
}

const SIGNS = { create: '+', update: '~', delete: '-' } as const;
const COLORS = { create: 32, update: 33, delete: 31, risk: 31, dim: 2 } as const;

/** The first line of a plan with something to show, so a reader new to it knows the signs. */
export const LEGEND = 'websites-sync will make these changes (+ create, ~ update in place, - delete):';
/** The first line when the plan only holds things back: it makes no change. */
export const HELD_LEGEND = 'websites-sync will make no change; it holds these back:';

/**
 * A declared write-only field sent because its current value cannot be known (no earlier send
 * recorded): not drift, but it replaces whatever the service holds.
 */
export const RESEND_NOTE =
  'will be sent, replacing a value the service does not show; --adopt records it instead';

export function renderText(read: Plan, options: TextOptions): string {
  // Its names and values from outside on one line each: only the lines below are the plan's layout.
  const plan = oneLineValue(read);
  const paint = (code: number, text: string) => (options.color ? colored(code, text) : text);
  const lines: string[] = [];
  for (const change of plan.changes)
    lines.push(...renderChange(change, paint, changeGuardNote(plan, change)));
  lines.push(...heldBack(plan, paint));
  if (lines.length > 0) lines.unshift(plan.changes.length > 0 ? LEGEND : HELD_LEGEND, '');
  if (lines.length > 0 && plan.unchanged > 0) lines.push(paint(COLORS.dim, `(${unchangedHidden(plan)})`));
  if (lines.length > 0) lines.push('');
  // Warnings arrive formatted as `file:line:column: warning: …`; they are shown as they are.
  for (const warning of plan.warnings) lines.push(paint(COLORS.update, warning));
  if (plan.unmanaged.length > 0) {
    lines.push(
      `Note: ${plan.unmanaged.length} website(s) on the account are not in the manifest and stay untouched (prune is off): ${preview(plan.unmanaged)}`,
    );
  }
  if (plan.ignored.length > 0)
    lines.push(`Note: ${plan.ignored.length} website(s) ignored by pattern: ${preview(plan.ignored)}`);
  const adopted = adoptedNote(plan);
  if (adopted) lines.push(adopted);
  lines.push(...guardNotes(plan));
  const kept = keptWriteOnlyNote(plan);
  if (kept) lines.push(`Note: ${kept}.`);
  // Counted on the plan as read: which names hold a line feed is part of its note.
  lines.push(summaryLine(read));
  return `${lines.join('\n')}\n`;
}

export function summaryLine(plan: Plan): string {
  const s = summarise(plan);
  const held = heldBackSummary(plan) + controlsNote(plan);
  if (plan.changes.length === 0) return `No changes. ${s.unchanged} website(s) match the manifest.${held}`;
  const resend =
    s.resend > 0
      ? ` (${s.resend} only to send write-only fields the service does not show, replacing what it holds; --adopt records them instead)`
      : '';
  return `Plan: ${s.create} to create, ${s.update} to update${resend}, ${s.delete} to delete, ${s.unchanged} unchanged.${held}`;
}

export function unchangedHidden(plan: Plan): string {
  return `${plan.unchanged} unchanged website${plan.unchanged === 1 ? '' : 's'} hidden`;
}

/** Observed drift, pending deletes and protected websites: shown like changes, marked as not applied. */
function heldBack(plan: Plan, paint: Paint): string[] {
  const lines: string[] = [];
  for (const change of plan.observed) {
    const [head = '', ...rest] = renderChange(change, paint);
    lines.push(`${head}  (${OBSERVED_NOTE})`, ...rest);
  }
  for (const pending of plan.pendingDeletes) {
    lines.push(`${paint(COLORS.dim, '-')} ${pending.domain} (id ${pending.id}): ${pendingText(pending)}`);
  }
  for (const domain of plan.protected) lines.push(`= ${domain}: ${KEPT_PROTECTED}`);
  for (const refusal of refusalLines(plan)) lines.push(`${paint(COLORS.risk, '-')} ${refusal}`);
  return lines;
}

type Paint = (code: number, text: string) => string;

function renderChange(change: Change, paint: Paint, note?: string): string[] {
  const sign = paint(COLORS[change.kind], SIGNS[change.kind]);
  const id = change.kind === 'create' ? '' : ` (id ${change.id})`;
  const risks = change.risks.map((r) => paint(COLORS.risk, `  ! ${RISK_LABELS[r].toUpperCase()}`));
  const head = `${sign} ${change.domain}${id}${note ? `  (${note})` : ''}`;
  const fields = change.fields.flatMap((f) => renderField(change, f, paint).map((line) => `    ${line}`));
  if (change.kind === 'delete') return [`${head}${risks.join('')}`, ...fields];
  return [head, ...fields, ...risks.map((r) => `  ${r}`)];
}

/** One line per field; a list that changes, one line per element added or removed. */
function renderField(change: Change, field: FieldChange, paint: Paint): string[] {
  const name = field.field;
  if (change.kind === 'create') return [`${name}: ${show(field.to)}`];
  // A delete lists what it destroys: the settings as last read.
  if (change.kind === 'delete') return [`${name}: ${paint(COLORS.dim, show(field.from))}`];
  if (field.unknown) return [`${name}: ${show(field.to)}  ${paint(COLORS.dim, `(${RESEND_NOTE})`)}`];
  const { from, to } = field;
  if (Array.isArray(from) && Array.isArray(to)) {
    const added = to.filter((item) => !from.includes(item));
    const removed = from.filter((item) => !to.includes(item));
    return [
      `${name}:`,
      ...added.map((item) => `  ${paint(COLORS.create, '+')} ${item}`),
      ...removed.map((item) => `  ${paint(COLORS.delete, '-')} ${item}`),
    ];
  }
  return [`${name}: ${paint(COLORS.dim, show(from))} → ${show(to)}`];
}

export function show(value: Shown): string {
  if (value === null) return '(none)';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.join(', ')}]`;
  return String(value);
}

/** The first few domains of a long list, and how many more there are. */
export function preview(domains: string[]): string {
  const shown = domains.slice(0, 5).join(', ');
  return domains.length > 5 ? `${shown}, … (+${domains.length - 5})` : shown;
}
