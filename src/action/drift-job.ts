import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as core from '@actions/core';
import { formatDuration } from '../model/index.js';
import { readBranchInto } from './branch.js';
import type { JobContext } from './context.js';
import { closeIssue, type DriftIssue, findDriftIssue, openDriftIssue, updateIssue } from './github.js';
import { markerOf, shownManifest } from './manifest-keys.js';
import { commentBody, leadOf, setOutputs, writeJobSummary } from './report.js';
import { syncOnce } from './sync.js';

// `command: drift`, on a schedule: a dry run against the account. Drift opens one issue (found again by
// its label and marker) that each later run updates with the drift as it is now and since when it has
// lasted; the first run that finds the account equal to the manifest closes it, saying so.

export async function runDriftJob(ctx: JobContext, now = new Date()): Promise<number> {
  if (ctx.inputs.stateBranch) await readBranchInto(ctx.store(ctx.inputs.stateBranch), await ctx.stateDir());
  const report = await syncOnce({ config: ctx.config(['--dry-run', '--detailed-exitcode']), io: ctx.io });
  // 3: the delete guard refused the plan a run would apply, which is drift too (a large one); 1 with
  // changes: a plan that could not be made whole (creates beyond the account's limit) still differs.
  const changes = report.result.plan.changes.length > 0;
  const drift = report.code === 2 || report.code === 3 || (report.code === 1 && changes);
  const where = ctx.repo;
  const label = ctx.inputs.driftLabel;
  const marker = markerOf('drift', ctx.manifest);
  // A lookup GitHub failed is said after the job summary and the outputs, which it would otherwise lose.
  const lookup = await findDriftIssue(ctx.github, where, { label, marker }).then(
    (issue) => ({ issue, failed: undefined }),
    (failed: unknown) => ({ issue: undefined, failed: failed ?? new Error('unknown') }),
  );
  const open = lookup.issue;
  const since = open ? new Date(open.createdAt) : now;
  const lasted = formatDuration(now.getTime() - since.getTime());
  const lasting = lookup.failed
    ? 'since when is not known (the drift issue could not be read)'
    : `since ${since.toISOString()} (${lasted})`;
  let head: string;
  if (drift) {
    head = `### websites-sync drift\n\n**The account differs from the manifest** (${shownManifest(ctx.manifest)}), ${lasting}; last checked ${now.toISOString()}. Apply the manifest again (re-run the latest apply), or change the manifest to adopt what changed.`;
  } else if (report.code !== 0) {
    // An error without a plan of changes: nothing is known of drift, and the issue is left as it is.
    head = `### websites-sync drift\n\n**The check ended with errors** (exit status ${report.code}; checked ${now.toISOString()}): whether the account differs is not known. See the log.`;
  } else {
    head = `### websites-sync drift\n\nNo drift: the account matches the manifest (checked ${now.toISOString()}).`;
    if (open) head += ` Closing #${open.number}: the drift lasted ${lasted}.`;
  }
  // The job summary and the outputs before the issue: a refused write (a permission) never loses them.
  const planJson = join(ctx.temp, 'plan.json');
  await writeFile(planJson, report.json);
  await writeJobSummary(ctx, [head], report);
  setOutputs(ctx, {
    exitStatus: report.code,
    report,
    planJson,
    summary: commentBody(ctx, '', [head], report),
  });
  if (lookup.failed) throw lookup.failed;
  if (drift) {
    const body = commentBody(ctx, marker, [head, ...leadOf(report)], report);
    const url = await writeDriftIssue(ctx, open, body);
    core.setFailed(`drift: the account differs from the manifest (${url})`);
  } else if (report.code !== 0) {
    core.setFailed('the drift check ended with errors (see the job summary)');
  } else if (open) {
    const text = `The account matches the manifest again (checked ${now.toISOString()}); the drift lasted ${lasted}, since ${since.toISOString()}.`;
    await closeIssue(ctx.github, { ...where, number: open.number }, ctx.io.redactor.show(text));
  }
  return report.code;
}

/** The open drift issue updated with `body`, or one opened; its address. */
async function writeDriftIssue(ctx: JobContext, open: DriftIssue | undefined, body: string): Promise<string> {
  if (open) {
    await updateIssue(ctx.github, { ...ctx.repo, number: open.number }, body);
    return open.url;
  }
  const title = `websites-sync: the account drifted from ${ctx.manifest}`;
  const issue = await openDriftIssue(ctx.github, ctx.repo, { title, body, label: ctx.inputs.driftLabel });
  return issue.url;
}
