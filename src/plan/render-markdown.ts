import { KEPT_PROTECTED, OBSERVED_NOTE, pendingText } from './render-lifecycle.js';
import { preview, show, summaryLine } from './render-text.js';
import {
  type Change,
  type FieldChange,
  type Plan,
  RISK_LABELS,
  riskyChanges,
  SENSITIVE,
  type Shown,
  UNREADABLE,
} from './types.js';

// GitHub-flavoured Markdown for pull-request comments and `$GITHUB_STEP_SUMMARY`: a summary line, a
// callout listing the risky changes, then one table per action in execution order. Values come from
// the plan's display fields only, so secrets are masked exactly as in the text and JSON formats.

export const RISK_MARK = '⚠️';

const HEADINGS = { delete: 'Delete', update: 'Update', create: 'Create' } as const;
const ORDER: Change['kind'][] = ['delete', 'update', 'create'];
const COLUMNS = {
  delete: ['Website', 'ID', 'Risk'],
  update: ['Website', 'ID', 'Changes', 'Risk'],
  create: ['Website', 'Settings', 'Risk'],
} as const;

export function renderMarkdown(plan: Plan): string {
  const blocks = ['### websites-sync plan', `**${summaryLine(plan)}**`];
  const risky = riskyChanges(plan);
  if (risky.length > 0) blocks.push(riskCallout(risky));
  for (const kind of ORDER) {
    const changes = plan.changes.filter((c) => c.kind === kind);
    if (changes.length > 0)
      blocks.push(`#### ${HEADINGS[kind]} (${changes.length})\n\n${table(kind, changes)}`);
  }
  blocks.push(...heldBack(plan), ...notes(plan));
  return `${blocks.join('\n\n')}\n`;
}

function heldBack(plan: Plan): string[] {
  const blocks: string[] = [];
  if (plan.observed.length > 0) {
    const rows = plan.observed.map(
      (c) => `- **${escapeMarkdown(c.domain)}**: ${c.fields.map((f) => fieldCell(c, f)).join('; ')}`,
    );
    blocks.push([`#### Observed (${plan.observed.length}): ${OBSERVED_NOTE}`, '', ...rows].join('\n'));
  }
  if (plan.pendingDeletes.length > 0) {
    const rows = plan.pendingDeletes.map(
      (p) => `- **${escapeMarkdown(p.domain)}** (id ${p.id}): ${pendingText(p)}`,
    );
    blocks.push([`#### Pending deletes (${plan.pendingDeletes.length})`, '', ...rows].join('\n'));
  }
  if (plan.protected.length > 0) {
    const rows = plan.protected.map(
      (domain) => `- **${escapeMarkdown(domain)}**: ${escapeMarkdown(KEPT_PROTECTED)}`,
    );
    blocks.push([`#### Protected (${plan.protected.length})`, '', ...rows].join('\n'));
  }
  return blocks;
}

function riskCallout(risky: Change[]): string {
  const lines = risky.map(
    (change) =>
      `> - ${RISK_MARK} **${escapeMarkdown(change.domain)}**: ${change.risks.map((r) => RISK_LABELS[r]).join('; ')}`,
  );
  return [
    '> [!WARNING]',
    `> **Risky changes (${risky.length})**: review them before applying.`,
    '>',
    ...lines,
  ].join('\n');
}

function table(kind: Change['kind'], changes: Change[]): string {
  const header = COLUMNS[kind];
  const rows = changes.map((change) => {
    const fields = change.fields.map((f) => fieldCell(change, f)).join('<br>');
    const id = change.kind === 'create' ? [] : [String(change.id)];
    return [escapeMarkdown(change.domain), ...id, ...(kind === 'delete' ? [] : [fields]), riskCell(change)];
  });
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function fieldCell(change: Change, field: FieldChange): string {
  if (change.kind === 'create') return `${field.field}: ${value(field.to)}`;
  return `${field.field}: ${value(field.from)} → ${value(field.to)}`;
}

function riskCell(change: Change): string {
  return change.risks.map((risk) => `${RISK_MARK} ${RISK_LABELS[risk]}`).join('<br>');
}

/** Masked and unknown values stay plain words; real values become code spans. */
function value(shown: Shown): string {
  const text = show(shown);
  return shown === null || shown === SENSITIVE || shown === UNREADABLE ? text : codeSpan(text);
}

/**
 * A code span safe inside a table cell: a fence longer than any backtick run in the text, and `|`
 * escaped (GitHub splits cells on it even inside code spans).
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const padded = text.startsWith('`') || text.endsWith('`') ? ` ${text} ` : text;
  return `${fence}${padded.replaceAll('|', '\\|')}${fence}`;
}

/** Free text (warnings, service messages) as literal Markdown. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|~&#]/g, (c) => `\\${c}`);
}

function notes(plan: Plan): string[] {
  const blocks: string[] = [];
  if (plan.warnings.length > 0) {
    blocks.push(['**Warnings**', '', ...plan.warnings.map((w) => `- ${escapeMarkdown(w)}`)].join('\n'));
  }
  if (plan.unmanaged.length > 0) {
    blocks.push(
      `${plan.unmanaged.length} website(s) on the account are not in the manifest and stay untouched (prune is off): ${escapeMarkdown(preview(plan.unmanaged))}`,
    );
  }
  if (plan.ignored.length > 0) {
    blocks.push(
      `${plan.ignored.length} website(s) ignored by pattern: ${escapeMarkdown(preview(plan.ignored))}`,
    );
  }
  return blocks;
}
