import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as core from '@actions/core';
import { VERSION } from '../cli/index.js';
import { escapeMarkdown } from '../plan/index.js';
import { type ReadSavedPlan, readSavedPlan } from '../saved-plan/index.js';
import { commitToBranch, readBranchFile, readBranchInto, replaceWithDirectory } from './branch.js';
import type { JobContext } from './context.js';
import { type MergedPull, mergedPullOf, upsertComment } from './github.js';
import { markerOf, planFileOf, shownManifest } from './manifest-keys.js';
import { commentBody, setOutputs, writeJobSummary } from './report.js';
import { type SyncReport, syncOnce } from './sync.js';

// `command: apply`, on a push to the main branch: the plan reviewed in the merged pull request (kept
// for its head commit by the plan job) is applied exactly, or not at all when it is stale; a push that
// no reviewed plan covers applies a fresh plan only when the workflow says so. The state is committed
// back to its branch after every run, failed ones included: it records what was applied and protected.

export async function runApplyJob(ctx: JobContext): Promise<number> {
  const stateBranch = ctx.inputs.stateBranch;
  if (stateBranch) await readBranchInto(ctx.store(stateBranch), await ctx.stateDir());
  let code: number;
  try {
    code = await applyReviewedOrFresh(ctx);
  } catch (error) {
    // The state is kept all the same; a failure to keep it is said beside the run's, never for it.
    if (stateBranch) {
      await keepState(ctx, stateBranch).catch((kept: Error) => {
        throw new Error(`${(error as Error).message}; and the state could not be kept: ${kept.message}`);
      });
    }
    throw error;
  }
  if (stateBranch) await keepState(ctx, stateBranch);
  return code;
}

/** The state directory committed back to its branch (lock files left out). */
async function keepState(ctx: JobContext, stateBranch: string): Promise<void> {
  await commitToBranch(
    ctx.store(stateBranch),
    `websites-sync state after run ${ctx.io.env.GITHUB_RUN_ID ?? ''} (${ctx.sha})`.trim(),
    replaceWithDirectory(ctx.workspace, await ctx.stateDir()),
  );
}

async function applyReviewedOrFresh(ctx: JobContext): Promise<number> {
  const merged = await mergedPullOf(ctx.github, ctx.repo, ctx.sha);
  const reviewed = merged ? await reviewedPlan(ctx, merged) : undefined;
  if (merged && reviewed) return applyReviewed(ctx, merged, reviewed);
  const why = merged
    ? `No reviewed plan of ${shownManifest(ctx.manifest)} was kept for the head commit \`${merged.headSha}\` of #${merged.number} (its plan job did not finish, failed, or was refused).`
    : `No merged pull request for commit \`${ctx.sha}\` (a direct push?), so no reviewed plan.`;
  if (!ctx.inputs.applyUnreviewed) {
    const text = `### websites-sync apply\n\n> [!CAUTION]\n> ${why} Nothing was applied. Review the change in a pull request, or set \`apply-unreviewed: true\` to apply a fresh plan on such pushes.`;
    await writeJobSummary(ctx, [text]);
    setOutputs(ctx, { exitStatus: 1, summary: text });
    core.setFailed(`${why} Nothing was applied.`.replace(/`/g, ''));
    return 1;
  }
  const note = `> [!WARNING]\n> ${why} Applying a fresh plan, unreviewed, as the workflow asks (\`apply-unreviewed: true\`).`;
  const report = await syncOnce({ config: ctx.config([]), io: ctx.io });
  return finish(ctx, report, [`### websites-sync apply\n\n${note}`]);
}

async function reviewedPlan(ctx: JobContext, merged: MergedPull): Promise<ReadSavedPlan | undefined> {
  const file = planFileOf(merged.headSha, ctx.manifest);
  const text = await readBranchFile(ctx.store(ctx.inputs.planBranch), file);
  if (text === undefined) return undefined;
  const path = join(ctx.temp, `reviewed-${merged.headSha}.json`);
  await writeFile(path, text, { mode: 0o600 });
  const read = await readSavedPlan(path, VERSION);
  if ('error' in read) throw new Error(`the reviewed plan of #${merged.number}: ${read.error}`);
  return read;
}

async function applyReviewed(ctx: JobContext, merged: MergedPull, saved: ReadSavedPlan): Promise<number> {
  const report = await syncOnce({ config: ctx.config([]), io: ctx.io, saved });
  const stale = report.result.stale;
  if (!stale) {
    const head = `### websites-sync apply\n\nApplied the plan reviewed in #${merged.number} for ${shownManifest(ctx.manifest)} (commit \`${merged.headSha}\`).`;
    return finish(ctx, report, [head]);
  }
  if (report.result.unread) return notReadNow(ctx, merged, report, stale);
  const reasons = stale.map((reason) => `> - ${escapeMarkdown(reason)}`);
  const head = [
    `### websites-sync apply\n\n> [!CAUTION]\n> **Not applied: the plan reviewed in #${merged.number} for ${shownManifest(ctx.manifest)} is stale**; nothing was changed. Since the review:`,
    ...reasons,
  ].join('\n');
  core.setFailed(`stale plan: the plan reviewed in #${merged.number} no longer matches; nothing was applied`);
  // Every reason in the job's log: the job summary and the comment may have to cut them.
  ctx.io.stderr.write(
    `stale plan: since the review of #${merged.number}:\n${stale.map((r) => `  - ${r}\n`).join('')}`,
  );
  const fresh = await syncOnce({ config: ctx.config(['--dry-run', '--detailed-exitcode']), io: ctx.io });
  const next = `A fresh plan, for the account and manifest as they are now, is below: review it in a new pull request (its plan is applied after merge).`;
  const marker = markerOf('stale plan', ctx.manifest);
  const body = commentBody(ctx, marker, [head, next], fresh);
  // The job summary (the reasons, whole up to its limit) and the outputs first: a comment GitHub refuses loses neither.
  await writeJobSummary(ctx, [head, next], fresh);
  setOutputs(ctx, { exitStatus: 1, report: fresh, summary: body });
  await upsertComment(ctx.github, { ...ctx.repo, number: merged.number }, marker, body);
  return 1;
}

/**
 * The reviewed plan still holds, but a delete's traffic got no answer now (a 503 after the retries, a
 * timeout): nothing was applied, and re-running this job applies the same plan once the service answers.
 * No fresh plan to review: nothing the review saw has changed.
 */
async function notReadNow(
  ctx: JobContext,
  merged: MergedPull,
  report: SyncReport,
  reasons: string[],
): Promise<number> {
  const head = [
    `### websites-sync apply\n\n> [!WARNING]\n> **Not applied: the traffic of a website the plan reviewed in #${merged.number} deletes (${shownManifest(ctx.manifest)}) could not be read now**; nothing was changed. The plan still matches the account and the manifest. Re-run this job when the service answers: it applies the same reviewed plan.`,
    ...reasons.map((reason) => `> - ${escapeMarkdown(reason)}`),
  ].join('\n');
  core.setFailed(
    `not applied: the traffic of a website to delete could not be read now; re-run this job later`,
  );
  ctx.io.stderr.write(`not applied, to apply again later:\n${reasons.map((r) => `  - ${r}\n`).join('')}`);
  await writeJobSummary(ctx, [head]);
  setOutputs(ctx, { exitStatus: 1, report, summary: commentBody(ctx, '', [head], report) });
  return 1;
}

async function finish(ctx: JobContext, report: SyncReport, head: string[]): Promise<number> {
  const planJson = join(ctx.temp, 'plan.json');
  await writeFile(planJson, report.json);
  await writeJobSummary(ctx, head, report);
  if (report.code !== 0) core.setFailed(`websites-sync apply ended with exit status ${report.code}`);
  setOutputs(ctx, {
    exitStatus: report.code,
    report,
    planJson,
    summary: commentBody(ctx, '', head, report),
  });
  return report.code;
}
