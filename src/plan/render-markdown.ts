import { adoptedNote, KEPT_PROTECTED, OBSERVED_NOTE, pendingText } from './render-lifecycle.js';
import { preview, RESEND_NOTE, show, summaryLine } from './render-text.js';
import {
  type Change,
  type FieldChange,
  PASSWORD_SET,
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
  delete: ['Website', 'ID', 'Settings destroyed', 'Risk'],
  update: ['Website', 'ID', 'Changes', 'Risk'],
  create: ['Website', 'Settings', 'Risk'],
} as const;

/** GitHub refuses a comment longer than 65,536 characters; a little is left for the caller's framing. */
export const COMMENT_LIMIT = 65_536;
const MARKDOWN_BUDGET = COMMENT_LIMIT - 1_536;

/** Tables longer than this are folded in `<details>`: the summary and the risks stay in view. */
const FOLD_AFTER = 10;

export interface MarkdownOptions {
  /** Characters at most (default: what fits a GitHub comment); rows are cut to fit, and that is said. */
  maxLength?: number;
}

export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const budget = options.maxLength ?? MARKDOWN_BUDGET;
  const whole = renderWithRows(plan, Number.POSITIVE_INFINITY);
  if (whole.length <= budget) return whole;
  // The most rows per table that still fit, found by halving: each try renders the plan once.
  let fits = 0;
  let tooMany = Math.max(...ORDER.map((kind) => plan.changes.filter((c) => c.kind === kind).length));
  while (tooMany - fits > 1) {
    const rows = Math.floor((fits + tooMany) / 2);
    if (renderWithRows(plan, rows).length <= budget) fits = rows;
    else tooMany = rows;
  }
  return renderWithRows(plan, fits);
}

function renderWithRows(plan: Plan, maxRows: number): string {
  const blocks = ['### websites-sync plan', `**${summaryLine(plan)}**`];
  const risky = riskyChanges(plan);
  if (risky.length > 0) blocks.push(riskCallout(risky));
  let cut = 0;
  for (const kind of ORDER) {
    const changes = plan.changes.filter((c) => c.kind === kind);
    if (changes.length === 0) continue;
    const shown = changes.slice(0, maxRows);
    cut += changes.length - shown.length;
    blocks.push(`#### ${HEADINGS[kind]} (${changes.length})\n\n${section(kind, shown, changes.length)}`);
  }
  blocks.push(...heldBack(plan), ...notes(plan));
  if (cut > 0) blocks.push(cutNote(cut, plan.changes.length));
  return `${blocks.join('\n\n')}\n`;
}

/** A table, folded when long, and what was left out of it. */
function section(kind: Change['kind'], shown: Change[], total: number): string {
  let body = table(kind, shown);
  if (shown.length < total) body += `\n\n_…and ${total - shown.length} more, not shown (see below)._`;
  if (total <= FOLD_AFTER) return body;
  return `<details><summary>Show the ${total} websites</summary>\n\n${body}\n\n</details>`;
}

function cutNote(cut: number, total: number): string {
  return [
    '> [!NOTE]',
    `> ${cut} of ${total} changes are not listed here, to fit GitHub's ${COMMENT_LIMIT.toLocaleString('en-US')}-character comment limit; the summary above counts them all.`,
    '> The full plan: `websites-sync --once --dry-run` (text) or `--output json`, or the saved plan (`--out`).',
  ].join('\n');
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
    return [escapeMarkdown(change.domain), ...id, fields, riskCell(change)];
  });
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function fieldCell(change: Change, field: FieldChange): string {
  const name = field.field;
  if (change.kind === 'create') return `${name}: ${value(field.to)}`;
  if (change.kind === 'delete') return `${name}: ${value(field.from)}`;
  if (field.unknown) return `${name}: ${value(field.to)} _(${RESEND_NOTE})_`;
  const { from, to } = field;
  if (Array.isArray(from) && Array.isArray(to)) {
    const added = to.filter((item) => !from.includes(item)).map((item) => `+ ${codeSpan(item)}`);
    const removed = from.filter((item) => !to.includes(item)).map((item) => `− ${codeSpan(item)}`);
    return `${name}: ${[...added, ...removed].join(', ')}`;
  }
  return `${name}: ${value(from)} → ${value(to)}`;
}

function riskCell(change: Change): string {
  return change.risks.map((risk) => `${RISK_MARK} ${RISK_LABELS[risk]}`).join('<br>');
}

/** Masked and unknown values stay plain words; real values become code spans. */
function value(shown: Shown): string {
  const text = show(shown);
  return shown === null || shown === SENSITIVE || shown === UNREADABLE || shown === PASSWORD_SET
    ? text
    : codeSpan(text);
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
  const adopted = adoptedNote(plan);
  if (adopted) blocks.push(escapeMarkdown(adopted));
  return blocks;
}
