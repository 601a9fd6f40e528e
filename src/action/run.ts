import * as core from '@actions/core';
import { AuthError, ServiceError } from '../service/index.js';
import { stateSecrets } from '../state/index.js';
import { runApplyJob } from './apply-job.js';
import { actionIo, jobContext } from './context.js';
import { runDriftJob } from './drift-job.js';
import { readInputs } from './inputs.js';
import { runPlanJob } from './plan-job.js';
import { failureText, writeJobSummary } from './report.js';

// The Action's one top-level handler: inputs → the job → an exit status. A failure ends as one
// `::error::` line and a job summary that quote the tool's own message (redacted), never a stack trace
// (unless the workflow asks for debug logging, RUNNER_DEBUG=1).

export async function runAction(env: NodeJS.ProcessEnv): Promise<number> {
  const io = actionIo(env);
  let ctx: Awaited<ReturnType<typeof jobContext>> | undefined;
  try {
    const inputs = readInputs(env);
    for (const secret of [
      inputs.apiKey,
      inputs.previousApiKey,
      inputs.githubToken,
      env.WEBSITES_SYNC_API_KEY,
      env.WEBSITES_SYNC_PREVIOUS_API_KEY,
      // The state URL's password, as decoded and as written.
      ...stateSecrets(inputs.state),
    ]) {
      // Given to GitHub's log masking too (actionIo's redactor).
      if (secret) io.redactor.add(secret);
    }
    ctx = await jobContext(inputs, io, env);
    if (inputs.command === 'plan') return await runPlanJob(ctx);
    if (inputs.command === 'apply') return await runApplyJob(ctx);
    return await runDriftJob(ctx);
  } catch (error) {
    const known = error instanceof Error && (error instanceof AuthError || error instanceof ServiceError);
    // An error the run already reported (an invalid manifest's) has no message: its last line (not a
    // log line) says it.
    const said = io
      .written()
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('{'));
    const message =
      (error instanceof Error ? error.message : String(error)) || said.at(-1) || 'failed (see above)';
    if (env.RUNNER_DEBUG === '1' && error instanceof Error && !known)
      core.debug(io.redactor.show(error.stack ?? ''));
    const line = io.redactor.show(`websites-sync: ${message}`);
    core.setFailed(line);
    // As action.yml documents it for every failure, whatever the job had set before; an outputs file
    // the runner did not provide does not turn the failure into a stack trace.
    try {
      core.setOutput('exit-status', '1');
    } catch {
      // Said above already, by setFailed.
    }
    if (ctx)
      await writeJobSummary(ctx, ['### websites-sync: failed', failureText(ctx, error)]).catch(() => {});
    return 1;
  }
}
