import * as core from '@actions/core';
import { COMMENT_LIMIT, escapeMarkdown, summarise } from '../plan/index.js';
import type { JobContext } from './context.js';
import type { SyncReport } from './sync.js';

// What a job shows: its outputs, the job summary (the whole plan, up to GitHub's 1 MiB) and the body of
// a comment or issue (what fits 65,536 characters, the summary first, a link to the rest). Every text
// passes through the redactor, whatever the service echoed into it.

/** GitHub's limit for one step's summary is 1 MiB; a little is left for the lines around the plan. */
const SUMMARY_BYTES = 1024 * 1024 - 4 * 1024;

export interface Outputs {
  exitStatus: number;
  report?: SyncReport;
  planJson?: string;
  savedPlan?: string;
  summary: string;
}

export function setOutputs(ctx: JobContext, outputs: Outputs): void {
  const redact = (text: string) => ctx.io.redactor.show(text);
  core.setOutput('exit-status', String(outputs.exitStatus));
  const plan = outputs.report?.result.plan;
  const counts = plan ? summarise(plan) : undefined;
  core.setOutput('has-changes', String((plan?.changes.length ?? 0) > 0));
  core.setOutput('creates', String(counts?.create ?? 0));
  core.setOutput('updates', String(counts?.update ?? 0));
  core.setOutput('deletes', String(counts?.delete ?? 0));
  core.setOutput('plan-json', outputs.planJson ?? '');
  core.setOutput('saved-plan', outputs.savedPlan ?? '');
  core.setOutput('summary', redact(outputs.summary));
}

/**
 * The job summary: `head` (the lines that say what happened), then the plan whole or cut to the step
 * summary's limit, in bytes (a domain or a mark may take several). The head is held to the limit too
 * (to half of it when a plan follows): a stale plan's reasons have no bound (one lists every website
 * added to the manifest), and GitHub drops a summary over its limit whole. What is cut is in the job's
 * log, where the CLI wrote it.
 */
export async function writeJobSummary(ctx: JobContext, head: string[], report?: SyncReport): Promise<void> {
  // Redacted before it is cut: a cut through a secret would leave a part of it the redactor cannot see.
  const shown = head.filter(Boolean).map((line) => ctx.io.redactor.show(line));
  const room = report ? SUMMARY_BYTES / 2 : SUMMARY_BYTES;
  const lines = withinBytes(room, (budget) => fitHead(shown, budget, SUMMARY_NOTE).join('\n\n'));
  const plan = report
    ? withinBytes(SUMMARY_BYTES - Buffer.byteLength(lines), (budget) =>
        report.markdown({ maxLength: budget, wholePlanAt: 'the JSON plan (the `plan-json` output)' }),
      )
    : '';
  await core.summary
    .addRaw(ctx.io.redactor.show([lines, plan].filter(Boolean).join('\n\n')))
    .addEOL()
    .write();
}

const SUMMARY_NOTE = `\n\n> [!NOTE]\n> Cut here to fit GitHub's 1 MiB limit for a job summary: the whole text is in the job's log.`;

/** What `render` makes of the largest budget in characters whose text fits `limit` bytes. */
function withinBytes(limit: number, render: (budget: number) => string): string {
  let budget = limit;
  for (;;) {
    const text = render(budget);
    const bytes = Buffer.byteLength(text);
    if (bytes <= limit || budget < 1024) return text;
    budget = Math.floor((budget * limit) / bytes) - 1024;
  }
}

/**
 * A comment or issue body: the marker, the lines that say what happened, then the plan in what is left
 * of 65,536 characters, with a link to the job summary when it was cut. The lines are held to the limit
 * too (to half of it when a plan follows, whose summary keeps its room): a stale plan's reasons have
 * no bound (one lists every website added to the manifest).
 */
export function commentBody(ctx: JobContext, marker: string, head: string[], report?: SyncReport): string {
  const link = `[the job summary](${ctx.runUrl})`;
  const footer = `<sub>websites-sync · ${link}</sub>`;
  const room = COMMENT_LIMIT - marker.length - footer.length - 64;
  // Redacted before it is cut: a cut through a secret would leave a part of it the redactor cannot see.
  const shown = head.map((line) => ctx.io.redactor.show(line));
  const note = `\n\n> [!NOTE]\n> Cut here to fit GitHub's ${COMMENT_LIMIT.toLocaleString('en')}-character limit: the whole text is in ${link}.`;
  const lines = fitHead(shown, report ? Math.min(room, COMMENT_LIMIT / 2) : room, note);
  const fixed = [marker, ...lines, footer].join('\n\n');
  const plan = report?.markdown({ maxLength: COMMENT_LIMIT - fixed.length - 64, wholePlanAt: link }) ?? '';
  const body = [marker, ...lines, plan.trimEnd(), footer].filter(Boolean).join('\n\n');
  return ctx.io.redactor.show(body);
}

/**
 * `head` within `budget` characters: whole, or cut at a line (else a word) before the budget, a code
 * block left open closed, and `note` (where the whole text is) after it.
 */
function fitHead(head: string[], budget: number, note: string): string[] {
  const text = head.join('\n\n');
  if (text.length <= budget) return head;
  const max = Math.max(0, budget - note.length - 8);
  let cut = text.lastIndexOf('\n', max);
  if (cut < max / 2) cut = text.lastIndexOf(' ', max);
  if (cut < max / 2) cut = max;
  // Not between the two halves of a character outside the BMP.
  if (/[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut -= 1;
  let kept = `${text.slice(0, cut).trimEnd()} …`;
  if ((kept.match(/```/g)?.length ?? 0) % 2 === 1) kept += '\n```';
  return [`${kept}${note}`];
}

/** A failure as the job summary, a comment and an output quote it: the message and what was reported. */
export function failureText(ctx: JobContext, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reported = ctx.io.written().trim();
  // Masked before it is cut: a cut across a secret would leave its end unmasked.
  const quoted = ctx.io.redactor.show([message, reported].filter(Boolean).join('\n'));
  return `\`\`\`\n${quoted.replace(/```/g, "'''").slice(-8000)}\n\`\`\``;
}

/**
 * What a reader must see before the tables: a refusal by the delete guard (the renderer puts it after
 * the plan) and how many warnings are listed below.
 */
export function leadOf(report: SyncReport): string[] {
  const lead: string[] = [];
  const { refused, plan } = report.result;
  if (refused) lead.push(`> [!CAUTION]\n> **Refused by the delete guard:** ${escapeMarkdown(refused)}`);
  const warnings = plan.warnings.length;
  if (warnings > 0)
    lead.push(`**${warnings} warning${warnings === 1 ? '' : 's'}**, listed below the changes.`);
  return lead;
}
