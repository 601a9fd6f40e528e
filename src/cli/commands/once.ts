import type { Logger } from 'pino';
import { type DesiredState, jsonDocument } from '../../model/index.js';
import {
  classifyRun,
  Interrupted,
  type ReconcileOptions,
  type ReconcileResult,
  reconcile,
  summariseOutcome,
} from '../../reconcile/index.js';
import {
  buildSavedPlan,
  newSalt,
  type ReadSavedPlan,
  readSavedPlan,
  SavedPlanMasked,
  writeSavedPlan,
} from '../../saved-plan/index.js';
import { StateLockError, type StateStore } from '../../state/index.js';
import type { Config } from '../args.js';
import { connectFromConfig } from '../connect.js';
import { EXIT, UsageError } from '../errors.js';
import { exitCodeOf, type Interruption, interruptOnSignals } from '../interrupt.js';
import { type Io, useColor } from '../io.js';
import { LiveOutput } from '../live.js';
import { loadOrExit } from '../load.js';
import { commandLogger } from '../logger.js';
import { notifyRun } from '../notify-run.js';
import { renderReport, resultText } from '../output.js';
import { keptFiles, refuseOwnFile } from '../own-files.js';
import { usesTls } from '../service-config.js';
import { openStoreFromConfig } from '../state-store.js';
import { StatusLine } from '../status-line.js';
import { setRunOptions } from '../v8-options.js';
import { VERSION } from '../version.js';

/** `--once`, `--once --dry-run [--out FILE]` and `--once --plan FILE`: one reconcile, then an exit status. */
export async function runOnce(config: Config, processIo: Io): Promise<number> {
  await checkPlanOptions(config);
  setRunOptions(usesTls(config.baseUrl, processIo.env));
  // The manifest is checked before anything else: an invalid one makes no request at all.
  const { desired, warnings } = await loadOrExit(config.manifest, processIo);
  const saved = config.plan === undefined ? undefined : await readPlanFile(config.plan);
  // On a terminal, a long apply shows its progress in a status line: all output of the run goes around it.
  const status = new StatusLine(processIo.stderr);
  const io = status.guard(processIo);
  const logger = commandLogger(config, io, true, status);
  const client = connectFromConfig(config, io, { logger, budget: config.rateBudget ?? 1 });
  const store = await openStoreFromConfig(config, io, { baseUrl: client.baseUrl, logger });
  const interruption = interruptOnSignals(
    io.stderr,
    'no new operations; those in flight finish',
    processIo.signals,
  );
  // Requests still waiting for their turn (the rate limit, the key's budget, a retry's pause) are not
  // sent: the stop waits only for those in flight.
  interruption.signal.addEventListener('abort', () => client.stop(), { once: true });
  // A hangup (the terminal closed) ends a run as it always did; a SIGTERM or SIGINT held since start-up
  // is handed over meanwhile.
  await processIo.signals?.release(['SIGHUP']);
  try {
    const code = await reconcileAndReport({
      config,
      io,
      logger,
      client,
      desired,
      warnings,
      saved,
      interruption,
      status,
      store,
    });
    return interruption.received ? exitCodeOf(interruption.received) : code;
  } catch (error) {
    if (!(error instanceof Interrupted && interruption.received)) throw error;
    io.stderr.write(`websites-sync: ${error.message}\n`);
    return exitCodeOf(interruption.received);
  } finally {
    status.clear();
    interruption.dispose();
    await store.close();
    // From here on a signal acts as Node's default would (it ends the process at once).
    await processIo.signals?.release();
    await closeClient(client, interruption.received);
  }
}

interface OnceRun {
  config: Config;
  io: Io;
  logger: Logger;
  client: ReturnType<typeof connectFromConfig>;
  desired: DesiredState;
  warnings: string[];
  saved: ReadSavedPlan | undefined;
  interruption: Interruption;
  status: StatusLine;
  store: StateStore;
}

async function reconcileAndReport(run: OnceRun): Promise<number> {
  const { config, io, desired, client } = run;
  const color = useColor(process.stdout, io.env);
  // Text goes out as the run goes (the plan before its first operation); JSON and Markdown stay whole.
  const live = config.output === 'text' ? new LiveOutput(io.stdout, run.status, color) : undefined;
  const prune = config.prune || desired.prune;
  const result = await reconcile({
    ...reconcileOptions(run, prune),
    // Changes are applied at the whole limit, whatever share the reads were given.
    onApply: (plan) => {
      client.budget.use(1);
      live?.plan(plan);
    },
    ...(live ? { onOutcome: live.outcome } : {}),
  });
  await notifyRun(config, io, run.logger, result, run.store);
  if (result.stale) {
    io.stderr.write(staleMessage(config.plan ?? '', result.stale, result.unread === true));
    return EXIT.error;
  }
  live?.finish();
  io.stdout.write(
    live?.started && result.applied
      ? `\n${resultText(result.applied, color)}`
      : reportText(run, result, color),
  );
  const { baseUrl, secret } = client;
  await saveIfAsked(config.out, { result, desired, baseUrl, secret, prune, force: config.force }, io);
  return exitCode(config, result, io);
}

/** The plan (and result) as `--output` asks; a JSON one marked as a document, so that it stays JSON. */
function reportText(run: OnceRun, result: ReconcileResult, color: boolean): string {
  const { config, client } = run;
  const origin = { version: VERSION, baseUrl: client.baseUrl, manifest: config.manifest };
  const text = renderReport({ ...result, origin }, config.output, color);
  return config.output === 'json' ? jsonDocument(text) : text;
}

function reconcileOptions(run: OnceRun, prune: boolean): ReconcileOptions {
  const { config, client, saved } = run;
  return {
    desired: run.desired,
    warnings: run.warnings,
    service: client.service,
    baseUrl: client.baseUrl,
    secret: client.secret,
    previousSecrets: client.previousSecrets,
    ...config.run,
    state: run.store,
    prune,
    logger: run.logger,
    signal: run.interruption.signal,
    ...(saved ? { saved: { ...saved, version: VERSION } } : {}),
  };
}

/**
 * After a stop was asked for, requests still on their way (a listing abandoned, a retry waiting) must not
 * hold the process open until they time out.
 */
async function closeClient(client: { close(): Promise<void> }, stopped: NodeJS.Signals | undefined) {
  if (!stopped) return client.close();
  void client.close();
  setTimeout(() => process.exit(exitCodeOf(stopped)), 1000).unref();
}

function exitCode(config: Config, result: ReconcileResult, io: Io): number {
  const outcome = classifyRun(result, { dryRun: config.dryRun });
  if (outcome.kind === 'refused' || outcome.kind === 'partly_refused') {
    io.stderr.write(`websites-sync: refused: ${outcome.reason}\n`);
  } else if (outcome.kind === 'partially_applied' && outcome.refused) {
    io.stderr.write(`websites-sync: refused: ${outcome.refused}\n`);
  }
  const unfit = result.plan.changes.flatMap((c) => (c.kind === 'create' && c.unfit ? [c.domain] : []));
  if (unfit.length > 0) {
    const not = config.dryRun ? 'would not be created' : 'not created';
    io.stderr.write(
      `websites-sync: ${unfit.length} website(s) ${not}, beyond the account's plan limit: ${unfit.join(', ')}\n`,
    );
  }
  if (outcome.kind === 'failed' && outcome.authError) throw outcome.authError;
  return summariseOutcome(outcome, { detailedExitcode: config.detailedExitcode }).exitCode;
}

/** --out and --plan are two halves of one review: refuse combinations that would mean something else. */
async function checkPlanOptions(config: Config): Promise<void> {
  if (config.out !== undefined) {
    await refuseOwnFile('--out', config.out, [
      ['the manifest', config.manifest],
      ...(await keptFiles(config)),
    ]);
  }
  if (config.out !== undefined && !config.dryRun) {
    throw new UsageError(
      '--out: only with --dry-run (it saves the plan for review); to apply a saved plan, use --plan FILE',
    );
  }
  if (config.out !== undefined && config.plan !== undefined) {
    throw new UsageError('--out and --plan: choose one; --plan applies a plan saved earlier with --out');
  }
}

async function readPlanFile(path: string): Promise<ReadSavedPlan> {
  const read = await readSavedPlan(path, VERSION);
  if ('error' in read) throw new UsageError(`--plan: ${path}: ${read.error}`);
  return read;
}

interface SaveContext {
  result: ReconcileResult;
  desired: DesiredState;
  baseUrl: string;
  secret: string;
  prune: boolean;
  force: boolean;
}

/** `--out`: the plan and what it depends on; not a plan the guard refused. */
async function saveIfAsked(path: string | undefined, context: SaveContext, io: Io): Promise<void> {
  if (path === undefined) return;
  if (context.result.refused) {
    io.stderr.write(`The plan was not saved to ${path}: it would be refused; add --force to save it.\n`);
    return;
  }
  const { result, desired, baseUrl, secret, prune, force } = context;
  const file = buildSavedPlan({
    plan: result.plan,
    desired,
    current: result.current ?? [],
    baseUrl,
    version: VERSION,
    prune,
    force,
    salt: newSalt(),
    secret,
    now: new Date(),
  });
  await writeSavedPlan(path, file, { redact: (json) => io.redactor.showJson(json), secret }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error instanceof StateLockError) throw error; // it names the file, as everywhere
      if (error instanceof SavedPlanMasked) throw new UsageError(`--out: ${path}: ${error.message}`);
      throw new UsageError(`--out: cannot write ${path} (${error.code ?? error.message})`);
    },
  );
  // stderr: stdout carries the plan, possibly as JSON for a machine.
  io.stderr.write(`Saved the plan to ${path}; apply exactly it with: websites-sync --once --plan ${path}\n`);
}

function staleMessage(path: string, reasons: string[], unread: boolean): string {
  if (unread) {
    return [
      `not applied: ${path} still matches the account and the manifest, but the traffic of a website it deletes could not be read now; nothing was changed.`,
      ...reasons.map((reason) => `  - ${reason}`),
      `Apply it again when the service answers: websites-sync --once --plan ${path}`,
      '',
    ].join('\n');
  }
  return [
    `stale plan: ${path} no longer matches what it was computed from; nothing was changed.`,
    ...reasons.map((reason) => `  - ${reason}`),
    `Plan again with --once --dry-run --out ${path}, review, then apply the new plan.`,
    '',
  ].join('\n');
}
