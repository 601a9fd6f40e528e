import type { ApplyResult, Outcome } from '../apply/index.js';
import { colored, oneLine, shownJson } from '../model/index.js';
import {
  type Block,
  bulletList,
  escapeMarkdown,
  type MarkdownOptions,
  type Plan,
  type PlanOrigin,
  renderMarkdown,
  renderText,
  toJsonPlan,
} from '../plan/index.js';
import type { OutputFormat } from './args.js';

// What goes to stdout: the plan in the chosen format, then (after an apply) what happened.

export interface RunReport {
  plan: Plan;
  /** Named in the JSON plan: the tool's version, the service and the manifest. */
  origin?: PlanOrigin;
  refused?: string;
  applied?: ApplyResult;
}

export function renderReport(
  report: RunReport,
  format: OutputFormat,
  color: boolean,
  markdown: Pick<MarkdownOptions, 'maxLength' | 'wholePlanAt'> = {},
): string {
  if (format === 'json') {
    const json = {
      ...toJsonPlan(report.plan, report.origin),
      ...(report.refused ? { refused: report.refused } : {}),
      ...(report.applied ? { result: resultJson(report.applied) } : {}),
    };
    // Exact values, as JSON escapes where a character would be interpreted on a screen.
    return `${shownJson(JSON.stringify(json, null, 2))}\n`;
  }
  if (format === 'markdown') {
    const after: Block[] = [];
    if (report.refused) after.push(`> [!CAUTION]\n> **Refused:** ${escapeMarkdown(report.refused)}`);
    if (report.applied) after.push(resultMarkdown(report.applied));
    return renderMarkdown(report.plan, { ...markdown, after });
  }
  let text = renderText(report.plan, { color });
  if (report.refused) text += `\nRefused: ${report.refused}\n`;
  if (report.applied) text += `\n${resultText(report.applied, color)}`;
  return text;
}

function resultJson(applied: ApplyResult) {
  return {
    outcomes: applied.outcomes.map((o) => ({ ...o, id: o.id ?? null })),
    failed: applied.failed,
  };
}

const RED = 31;
const GREEN = 32;
const paintWith = (color: boolean) => (code: number, text: string) => (color ? colored(code, text) : text);

/** The apply's summary; the operations that failed or were not attempted stand out in red. */
export function resultText(applied: ApplyResult, color = false): string {
  const paint = paintWith(color);
  const lines = unsuccessful(applied).map((o) =>
    paint(RED, `  ✗ ${o.action} ${oneLine(o.domain)}: ${whyNot(o)}`),
  );
  const head = resultHead(applied);
  return `${[applied.failed > 0 ? paint(RED, head) : head, ...lines].join('\n')}\n`;
}

/** One line per operation as it completes, while the apply runs. */
export function outcomeLine(outcome: Outcome, color: boolean): string {
  const paint = paintWith(color);
  const { action, result, id } = outcome;
  const domain = oneLine(outcome.domain);
  if (result === 'failed' || result === 'skipped')
    return `${paint(RED, `✗ ${action} ${domain}: ${whyNot(outcome)}`)}\n`;
  const where = id === undefined ? '' : ` (id ${id})`;
  return `${paint(GREEN, '✓')} ${action} ${domain}${where}: ${result}\n`;
}

/** The apply's summary and what did not succeed, cut with the plan's lists to fit a comment. */
function resultMarkdown(applied: ApplyResult): Block {
  const head = `**${resultHead(applied)}**`;
  const lines = unsuccessful(applied).map(
    (o) => `- ✗ ${o.action} **${escapeMarkdown(o.domain)}**: ${escapeMarkdown(whyNot(o))}`,
  );
  return lines.length > 0 ? bulletList('unsuccessful operations', head, lines) : head;
}

function resultHead(applied: ApplyResult): string {
  const count = (...results: string[]) => applied.outcomes.filter((o) => results.includes(o.result)).length;
  const summary = `${count('created', 'adopted')} created, ${count('updated')} updated, ${count('deleted', 'already-gone')} deleted, ${applied.failed} failed`;
  return applied.failed > 0 ? `Apply finished with failures: ${summary}.` : `Apply complete: ${summary}.`;
}

function unsuccessful(applied: ApplyResult): Outcome[] {
  return applied.outcomes.filter((o) => o.result === 'failed' || o.result === 'skipped');
}

function whyNot(outcome: Outcome): string {
  if (outcome.result === 'skipped') return outcome.error ?? 'not attempted (the run stopped)';
  return outcome.error ?? 'failed';
}
