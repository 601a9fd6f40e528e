import { formatCount, oneLine, oneLineValue } from '../model/index.js';
import { type Block, bulletList, type Cut, type CutList, fitBlocks, moreLine } from './markdown-fit.js';
import { changeGuardNote, guardNotes, refusalLines } from './render-guards.js';
import {
  adoptedNote,
  KEPT_PROTECTED,
  keptWriteOnlyNote,
  OBSERVED_NOTE,
  pendingText,
} from './render-lifecycle.js';
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
  /** Characters at most (default: what fits a GitHub comment); lists are cut to fit, and that is said. */
  maxLength?: number;
  /** Blocks after the plan (an apply's result): they share the budget, their lists are cut alike. */
  after?: Block[];
  /**
   * Where the whole plan can be read when this one is cut (Markdown, e.g. a link to a job summary);
   * by default the commands that print it.
   */
  wholePlanAt?: string;
}

export function renderMarkdown(read: Plan, options: MarkdownOptions = {}): string {
  // Its names and values from outside on one line each: a line feed in one would end a table row.
  const plan = oneLineValue(read);
  const blocks: Block[] = ['### websites-sync plan', `**${summaryLine(read)}**`];
  const risky = riskyChanges(plan);
  if (risky.length > 0) blocks.push(riskCallout(risky));
  for (const kind of ORDER) {
    const changes = plan.changes.filter((c) => c.kind === kind);
    if (changes.length > 0) blocks.push(tableBlock(kind, changes, plan));
  }
  blocks.push(...heldBack(plan), ...notes(plan), ...(options.after ?? []));
  return fitBlocks(blocks, options.maxLength ?? MARKDOWN_BUDGET, (cuts) => cutNote(cuts, options));
}

/** A table, folded when long, and what was left out of it. */
function tableBlock(kind: Change['kind'], changes: Change[], plan: Plan): CutList {
  return {
    noun: 'changes in the tables',
    items: changes.map((change) => tableRow(change, changeGuardNote(plan, change))),
    render: (shown, total) => {
      let body = table(kind, shown);
      if (shown.length < total) body += `\n\n${moreLine('', total - shown.length)}`;
      if (total > FOLD_AFTER)
        body = `<details><summary>Show the ${total} websites</summary>\n\n${body}\n\n</details>`;
      return `#### ${HEADINGS[kind]} (${total})\n\n${body}`;
    },
  };
}

function cutNote(cuts: Cut[], { maxLength, wholePlanAt }: MarkdownOptions): string {
  const counts = cuts.map(({ noun, cut, total }) => `${cut} of ${total} ${noun}`).join('; ');
  return [
    '> [!NOTE]',
    `> Not listed here, to fit ${limitText(maxLength)}: ${counts}. The summary above counts every change.`,
    wholePlanAt
      ? `> The full plan: ${wholePlanAt}.`
      : '> The full plan: `websites-sync --once --dry-run` (text) or `--output json`, or the saved plan (`--out`); an apply logs every operation on stderr.',
  ].join('\n');
}

/** The limit the document was cut to: a comment's, or another the caller set (a job summary's). */
function limitText(maxLength: number | undefined): string {
  if (maxLength !== undefined && maxLength > COMMENT_LIMIT) {
    return `${formatCount(maxLength)} characters`;
  }
  return `GitHub's ${formatCount(COMMENT_LIMIT)}-character comment limit`;
}

function heldBack(plan: Plan): Block[] {
  const blocks: Block[] = [];
  if (plan.observed.length > 0) {
    const rows = plan.observed.map(
      (c) => `- **${escapeMarkdown(c.domain)}**: ${c.fields.map((f) => fieldCell(c, f)).join('; ')}`,
    );
    blocks.push(bulletList('observed websites', `#### Observed (${rows.length}): ${OBSERVED_NOTE}`, rows));
  }
  if (plan.pendingDeletes.length > 0) {
    const rows = plan.pendingDeletes.map(
      (p) => `- **${escapeMarkdown(p.domain)}** (id ${escapeMarkdown(String(p.id))}): ${pendingText(p)}`,
    );
    blocks.push(bulletList('pending deletes', `#### Pending deletes (${rows.length})`, rows));
  }
  if (plan.protected.length > 0) {
    const rows = plan.protected.map(
      (domain) => `- **${escapeMarkdown(domain)}**: ${escapeMarkdown(KEPT_PROTECTED)}`,
    );
    blocks.push(bulletList('protected websites', `#### Protected (${rows.length})`, rows));
  }
  const refused = refusalLines(plan).map((line) => `- ${escapeMarkdown(line)}`);
  if (refused.length > 0) {
    const title = `#### Refused by the traffic guard (${refused.length})`;
    blocks.push(bulletList('refused deletes', title, refused));
  }
  return blocks;
}

function riskCallout(risky: Change[]): CutList {
  return {
    noun: 'risky changes in the callout',
    items: risky.map(
      (change) =>
        `> - ${RISK_MARK} **${escapeMarkdown(change.domain)}**: ${change.risks.map((r) => RISK_LABELS[r]).join('; ')}`,
    ),
    render: (shown, total) =>
      [
        '> [!WARNING]',
        `> **Risky changes (${total})**: review them before applying.`,
        '>',
        ...shown,
        ...(shown.length < total ? [moreLine('> - ', total - shown.length)] : []),
      ].join('\n'),
  };
}

function tableRow(change: Change, note: string | undefined): string {
  const fields = change.fields.map((f) => fieldCell(change, f)).join('<br>');
  // The id is the service's to choose (a string, possibly hostile): escaped like a domain.
  const id = change.kind === 'create' ? [] : [escapeMarkdown(String(change.id))];
  const risk = [riskCell(change), ...(note ? [`_${escapeMarkdown(note)}_`] : [])].filter(Boolean);
  return row([escapeMarkdown(change.domain), ...id, fields, risk.join('<br>')]);
}

function table(kind: Change['kind'], rows: string[]): string {
  const header = COLUMNS[kind];
  return [row(header), row(header.map(() => '---')), ...rows].join('\n');
}

const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;

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
  // On one line too: a line feed in a value from outside would end a table row or a list item.
  // GitHub finds `@name` (a mention: a notification to that user or team) and `#12` (a link that also
  // shows on issue 12) in the rendered text: a zero-width space after `@` and `#` keeps the text as it
  // reads and ends both, as Dependabot and Renovate do. It is written as a character reference, which
  // the page renders: the character itself would be shown escaped (`shownText`), as any from outside.
  return oneLine(text)
    .replace(/[\\`*_[\]<>|~&#]/g, (c) => `\\${c}`)
    .replace(/[@#]/g, (c) => `${c}${NOT_A_REFERENCE}`);
}

const NOT_A_REFERENCE = '&#8203;';

function notes(plan: Plan): Block[] {
  const blocks: Block[] = [];
  if (plan.warnings.length > 0) {
    blocks.push(
      bulletList(
        'warnings',
        '**Warnings**',
        plan.warnings.map((w) => `- ${escapeMarkdown(w)}`),
      ),
    );
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
  blocks.push(...guardNotes(plan).map(escapeMarkdown));
  const kept = keptWriteOnlyNote(plan);
  if (kept) blocks.push(`${escapeMarkdown(kept)}.`);
  return blocks;
}
