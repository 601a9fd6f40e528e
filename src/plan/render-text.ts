import { heldBackSummary, KEPT_PROTECTED, OBSERVED_NOTE, pendingText } from './render-lifecycle.js';
import { type Change, type FieldChange, type Plan, RISK_LABELS, type Shown, summarise } from './types.js';

// Terraform-like: `+` create, `~` update (field: old → new), `-` delete, then a summary line.

export interface TextOptions {
  /** ANSI colours: only on a TTY and without NO_COLOR; the caller decides. */
  color: boolean;
}

const SIGNS = { create: '+', update: '~', delete: '-' } as const;
const COLORS = { create: 32, update: 33, delete: 31, risk: 31, dim: 2 } as const;

export function renderText(plan: Plan, options: TextOptions): string {
  const paint = (code: number, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  for (const change of plan.changes) lines.push(...renderChange(change, paint));
  lines.push(...heldBack(plan, paint));
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
  lines.push(summaryLine(plan));
  return `${lines.join('\n')}\n`;
}

export function summaryLine(plan: Plan): string {
  const s = summarise(plan);
  const held = heldBackSummary(plan);
  if (plan.changes.length === 0) return `No changes. ${s.unchanged} website(s) match the manifest.${held}`;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged.${held}`;
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
  return lines;
}

type Paint = (code: number, text: string) => string;

function renderChange(change: Change, paint: Paint): string[] {
  const sign = paint(COLORS[change.kind], SIGNS[change.kind]);
  const id = change.kind === 'create' ? '' : ` (id ${change.id})`;
  const risks = change.risks.map((r) => paint(COLORS.risk, `  ! ${RISK_LABELS[r].toUpperCase()}`));
  const head = `${sign} ${change.domain}${id}`;
  if (change.kind === 'delete') return [`${head}${risks.join('')}`];
  return [
    head,
    ...change.fields.map((f) => `    ${renderField(change, f, paint)}`),
    ...risks.map((r) => `  ${r}`),
  ];
}

function renderField(change: Change, field: FieldChange, paint: Paint): string {
  if (change.kind === 'create') return `${field.field}: ${show(field.to)}`;
  return `${field.field}: ${paint(COLORS.dim, show(field.from))} → ${show(field.to)}`;
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
