import {
  type Config,
  commandLogger,
  connectFromConfig,
  type Io,
  loadOrExit,
  notifyRun,
  openStoreFromConfig,
  renderReport,
  VERSION,
} from '../cli/index.js';
import { classifyRun, type ReconcileResult, reconcile, summariseOutcome } from '../reconcile/index.js';
import { buildSavedPlan, newSalt, type ReadSavedPlan, writeSavedPlan } from '../saved-plan/index.js';

// One pass of the pipeline for a job of the Action, through the same doors `websites-sync --once`
// uses: the manifest loaded (or its problems reported), the service client built from the options,
// one reconcile, and the plan kept signed when it is a plan for review.

export interface SyncRequest {
  config: Readonly<Config>;
  io: Io;
  /** `--plan`: apply exactly this reviewed plan, or nothing when it is stale. */
  saved?: ReadSavedPlan;
  /** `--out`: where the signed plan goes (dry runs only; a plan the guard refused is not kept). */
  savePlanTo?: string;
}

export interface SyncReport {
  result: ReconcileResult;
  /** The command line's exit status for this run (0 ok, 1 error or stale, 2 changes, 3 refused). */
  code: number;
  /** Whether the signed plan was written to `savePlanTo`. */
  saved: boolean;
  /** The plan (and after an apply, its result) in Markdown, within `maxLength` characters. */
  markdown(options: { maxLength: number; wholePlanAt?: string }): string;
  /** The same as `--output json` prints. */
  json: string;
}

export async function syncOnce(request: SyncRequest): Promise<SyncReport> {
  const { config, io } = request;
  const { desired, warnings } = await loadOrExit(config.manifest, io);
  const logger = commandLogger(config, io, false);
  const client = connectFromConfig(config, io, { logger, budget: config.rateBudget ?? 1 });
  // The state where the options say (a file, or PostgreSQL), as the CLI opens it.
  const store = await openStoreFromConfig(config, io, { baseUrl: client.baseUrl, logger });
  try {
    const prune = config.prune || desired.prune;
    const result = await reconcile({
      desired,
      warnings,
      service: client.service,
      baseUrl: client.baseUrl,
      secret: client.secret,
      previousSecrets: client.previousSecrets,
      ...config.run,
      state: store,
      prune,
      logger,
      onApply: () => client.budget.use(1),
      ...(request.saved ? { saved: { ...request.saved, version: VERSION } } : {}),
    });
    await notifyRun(config, io, logger, result, store);
    const outcome = classifyRun(result, { dryRun: config.dryRun });
    const { exitCode } = summariseOutcome(outcome, { detailedExitcode: config.detailedExitcode });
    let saved = false;
    if (request.savePlanTo && config.dryRun && !result.refused && !result.stale) {
      const file = buildSavedPlan({
        plan: result.plan,
        desired,
        current: result.current ?? [],
        baseUrl: client.baseUrl,
        version: VERSION,
        prune,
        force: config.force,
        salt: newSalt(),
        secret: client.secret,
        now: new Date(),
      });
      const redact = (json: string) => io.redactor.showJson(json);
      await writeSavedPlan(request.savePlanTo, file, { redact, secret: client.secret });
      saved = true;
    }
    const origin = { version: VERSION, baseUrl: client.baseUrl, manifest: config.manifest };
    const report = { ...result, origin };
    return {
      result,
      code: exitCode,
      saved,
      markdown: (options) => io.redactor.show(renderReport(report, 'markdown', false, options)),
      json: io.redactor.showJson(renderReport(report, 'json', false)),
    };
  } finally {
    await store.close();
    await client.close();
  }
}
