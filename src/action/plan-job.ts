import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as core from '@actions/core';
import { UsageError } from '../cli/index.js';
import { commitToBranch, putFile, readBranchInto } from './branch.js';
import type { JobContext } from './context.js';
import { upsertComment } from './github.js';
import { markerOf, planFileOf, shownManifest } from './manifest-keys.js';
import { commentBody, failureText, leadOf, setOutputs, writeJobSummary } from './report.js';
import { type SyncReport, syncOnce } from './sync.js';

// `command: plan`, on a pull request: a dry run against the account, the plan in one living comment
// (found by its marker, edited on every push) and in the job summary, and the signed plan kept on the
// plans branch under the pull request's head commit, where the apply after merge finds exactly it.

interface PullRequest {
  number: number;
  headSha: string;
  /** Why GitHub gives its workflow none of the repository's secrets, if it does not. */
  withoutSecrets: 'fork' | 'dependabot' | undefined;
}

export async function runPlanJob(ctx: JobContext): Promise<number> {
  const pull = pullRequestOf(ctx);
  if (!(ctx.inputs.apiKey || ctx.io.env.WEBSITES_SYNC_API_KEY) && pull.withoutSecrets)
    return noSecretsNotice(ctx, pull.withoutSecrets);
  if (ctx.inputs.stateBranch) await readBranchInto(ctx.store(ctx.inputs.stateBranch), await ctx.stateDir());
  const savedPlan = join(ctx.temp, `plan-${pull.headSha}.signed.json`);
  let report: SyncReport;
  try {
    const config = ctx.config(['--dry-run', '--detailed-exitcode']);
    report = await syncOnce({ config, io: ctx.io, savePlanTo: savedPlan });
  } catch (error) {
    await reportFailure(ctx, pull, error);
    throw error;
  }
  const planJson = join(ctx.temp, 'plan.json');
  await writeFile(planJson, report.json);
  if (!(await showThenKeep(ctx, pull, report, { planJson, savedPlan }))) return 1;
  // 2 is "changes to review": the plan job succeeded; 1 (error) and 3 (refused) fail it.
  if (report.code === 3) core.setFailed(`refused: ${ctx.io.redactor.show(refusalOf(report))}`);
  else if (report.code === 1) core.setFailed('the plan ended with errors (see the job summary)');
  return report.code === 2 ? 0 : report.code;
}

/**
 * The plan shown (job summary, outputs, then the comment), then the signed plan kept: a plan is applied
 * after merge only if the pull request showed it. Kept first, a comment GitHub then refused would leave
 * the previous commit's plan in view while this one waited on the plans branch, to be applied unseen.
 * Shown first, a keep that fails (no `contents: write`?) leaves no file, so the apply applies nothing;
 * the comment is then corrected to say so, and the job fails. False when the job failed.
 */
async function showThenKeep(
  ctx: JobContext,
  pull: PullRequest,
  report: SyncReport,
  files: { planJson: string; savedPlan: string },
): Promise<boolean> {
  const marker = markerOf('plan', ctx.manifest);
  const where = { ...ctx.repo, number: pull.number };
  const head = headOf(ctx, pull, report, undefined);
  const body = commentBody(ctx, marker, head, report);
  // The job summary and the outputs first: a comment GitHub refuses loses neither.
  await writeJobSummary(ctx, head, report);
  const saved = report.saved ? { savedPlan: files.savedPlan } : {};
  const outputs = { exitStatus: report.code, report, planJson: files.planJson, ...saved };
  setOutputs(ctx, { ...outputs, summary: body });
  try {
    const comment = await upsertComment(ctx.github, where, marker, body);
    core.info(`${comment.created ? 'Commented' : 'Updated the comment'} on #${pull.number}: ${comment.url}`);
  } catch (error) {
    if (report.saved)
      await writeJobSummary(ctx, [notKeptNote('the comment that shows it could not be written')]);
    throw error;
  }
  const notKept = report.saved ? await keepPlan(ctx, pull.headSha, files.savedPlan) : undefined;
  if (notKept === undefined) return true;
  const shown = commentBody(ctx, marker, headOf(ctx, pull, report, notKept), report);
  await writeJobSummary(ctx, [notKeptNote(notKept)]);
  setOutputs(ctx, { ...outputs, summary: shown });
  // Not corrected, the comment says "kept" of a plan that is not: the apply still applies nothing.
  await upsertComment(ctx.github, where, marker, shown).catch((e: Error) =>
    core.warning(`cannot correct the comment on #${pull.number}: ${ctx.io.redactor.show(e.message)}`),
  );
  core.setFailed(`the plan could not be kept on ${ctx.inputs.planBranch}: ${notKept}`);
  return false;
}

/** Said under the job summary's plan, whose head said it was kept. */
function notKeptNote(why: string): string {
  return `> [!CAUTION]\n> **The signed plan above was not kept** (${why}): it cannot be applied after merge.`;
}

/** The mass-delete guard's reason, or the deletes the traffic guard refused (the rest is in the plan). */
function refusalOf(report: SyncReport): string {
  const refusals = report.result.plan.trafficRefused;
  const traffic = `the traffic guard refused ${refusals.length} delete(s) of websites with visitors (or unknown traffic, traffic_guard: strict): ${refusals.map((r) => r.domain).join(', ')} (allow_delete_with_traffic: true on an entry lets one through)`;
  return report.result.refused ?? traffic;
}

function pullRequestOf(ctx: JobContext): PullRequest {
  const pull = ctx.payload.pull_request;
  if (!pull) {
    throw new UsageError(
      `command plan: runs on pull_request events (this is a ${ctx.eventName} event); use apply on the main branch, drift on a schedule`,
    );
  }
  const head = pull.head as { sha: string; repo?: { full_name?: string } | null };
  const base = pull.base as { repo?: { full_name?: string } };
  const author = (pull.user as { login?: string } | undefined)?.login;
  // Dependabot's pull requests run with Dependabot's secrets only, from a branch of this repository.
  const withoutSecrets =
    head.repo?.full_name !== base.repo?.full_name
      ? 'fork'
      : author === 'dependabot[bot]'
        ? 'dependabot'
        : undefined;
  return { number: pull.number, headSha: head.sha, withoutSecrets };
}

function headOf(
  ctx: JobContext,
  pull: PullRequest,
  report: SyncReport,
  notKept: string | undefined,
): string[] {
  let kept = report.saved
    ? `The signed plan is kept for commit \`${pull.headSha}\`: after merge, exactly it is applied.`
    : 'This plan is not kept: it cannot be applied after merge.';
  if (notKept) kept = `**The signed plan could not be kept** (${notKept}): it cannot be applied after merge.`;
  return [
    `Plan of ${shownManifest(ctx.manifest)} for commit \`${pull.headSha}\`. ${kept}`,
    ...leadOf(report),
  ];
}

/**
 * The signed plan on the plans branch, one file per head commit and manifest (a later push adds its
 * own; another manifest's plan of the same commit is another file); why it could not be kept, if so.
 */
async function keepPlan(ctx: JobContext, sha: string, path: string): Promise<string | undefined> {
  const text = await readFile(path, 'utf8');
  const store = ctx.store(ctx.inputs.planBranch);
  try {
    const file = planFileOf(sha, ctx.manifest);
    await commitToBranch(
      store,
      `websites-sync plan for ${sha} (${ctx.manifest})`,
      putFile(ctx.workspace, file, text),
    );
    return undefined;
  } catch (error) {
    return ctx.io.redactor.show((error as Error).message);
  }
}

/**
 * A fork's or Dependabot's pull request runs without the repository's secrets: say so, plainly, and
 * plan nothing (not a red job for a key nobody could have given it).
 */
async function noSecretsNotice(ctx: JobContext, why: 'fork' | 'dependabot'): Promise<number> {
  const whose =
    why === 'fork'
      ? "This pull request comes from a fork, and GitHub gives a fork's workflow"
      : "This pull request is Dependabot's, and GitHub gives its workflow only Dependabot's secrets,";
  const text = [
    '### websites-sync plan',
    '> [!NOTE]',
    `> ${whose} none of the repository's secrets: there is no API key to read the account with, so no plan was made.`,
    '> A maintainer can push the same change to a branch of this repository to have it planned; without a reviewed plan, the apply after merge applies nothing unless the workflow sets `apply-unreviewed: true`.',
  ].join('\n');
  core.warning(
    `pull request from ${why === 'fork' ? 'a fork' : 'Dependabot'}: no secrets, no plan (see the job summary)`,
  );
  await writeJobSummary(ctx, [text]);
  setOutputs(ctx, { exitStatus: 0, summary: text });
  return 0;
}

/** The living comment says the plan failed, and why (redacted), instead of showing an older plan. */
async function reportFailure(ctx: JobContext, pull: PullRequest, error: unknown): Promise<void> {
  const head = [
    `### websites-sync plan\n\n> [!CAUTION]\n> No plan for commit \`${pull.headSha}\` (${shownManifest(ctx.manifest)}): the run failed.`,
    failureText(ctx, error),
  ];
  const marker = markerOf('plan', ctx.manifest);
  const body = commentBody(ctx, marker, head);
  setOutputs(ctx, { exitStatus: 1, summary: body });
  await upsertComment(ctx.github, { ...ctx.repo, number: pull.number }, marker, body).catch((e: Error) =>
    core.warning(`cannot comment on #${pull.number}: ${ctx.io.redactor.show(e.message)}`),
  );
}
