import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { PlanLimit, RemoteWebsite } from '../model/index.js';
import { Interrupted, type ReconcileResult, reconcile } from '../reconcile/index.js';
import type { Leadership } from '../state/index.js';
import { ConditionLog } from './condition-log.js';
import { keyAdvice, ServiceInUse } from './key-file.js';
import { KnownListing } from './known-listing.js';
import { LeaderElection } from './leadership.js';
import { type GoodManifest, ManifestSource } from './manifest-source.js';
import { notifyRun, RunHealth } from './run-health.js';
import { endOfRun, heldBackOf, logRun, refusedDeletesOf, suffix } from './run-log.js';
import { realTimers, Scheduler, type Trigger, withinGrace } from './scheduler.js';
import type { DaemonEvents, DaemonOptions, Readiness, RunReport } from './types.js';
import { WarningLog } from './warning-log.js';
import { ManifestWatcher } from './watch.js';

// The daemon decides when the pipeline runs and keeps the last good manifest in force; each run is
// one `reconcile()`, exactly what `--once` does.

export const DEFAULT_DEBOUNCE_MS = 300;

type RunEnd = Omit<RunReport, 'run' | 'triggers' | 'durationMs'>;

export class Daemon extends EventEmitter<DaemonEvents> {
  readonly #options: DaemonOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #source: ManifestSource;
  readonly #known = new KnownListing();
  readonly #warnings: WarningLog;
  readonly #scheduler: Scheduler;
  readonly #watcher: ManifestWatcher;
  readonly #abort = new AbortController();
  readonly #election: LeaderElection;
  readonly #health: RunHealth;
  readonly #conditions: ConditionLog;
  readonly #client: ServiceInUse;
  #runs = 0;
  #leading: boolean | undefined; // the role the election told last
  /** Whether the run in progress read the whole account (a resync), or only what an edit touched. */
  #readWhole = false;
  /**
   * Whether the run in progress planned from the whole account: only then has it met every condition
   * that still stands (a resync that failed before it planned met none of them).
   */
  #plannedWhole = false;
  #last: RunReport | undefined;
  /** The account's plan limit as the last resync read it (edits of the manifest do not ask again). */
  #planLimit: PlanLimit | undefined;

  constructor(options: DaemonOptions) {
    super();
    this.#options = options;
    this.#logger = options.logger.child({ stage: 'daemon' });
    this.#now = options.now ?? Date.now;
    this.#warnings = new WarningLog(options.logger);
    this.#health = new RunHealth(options.notifier, keyAdvice(options.keyFile));
    this.#conditions = options.conditions ?? new ConditionLog();
    this.#client = new ServiceInUse(options, options.keyFile, options.logger);
    this.#source = new ManifestSource({
      file: options.manifest,
      env: options.env,
      logger: options.logger,
      warnings: this.#warnings,
      ...(options.redactor ? { redactor: options.redactor } : {}),
    });
    this.#scheduler = new Scheduler({
      run: (triggers) => this.#run(triggers),
      intervalMs: options.intervalMs,
      timers: options.timers,
      onError: (error) => this.#logger.error({ err: String(error) }, 'run crashed'),
      onIdle: () => this.emit('idle'),
    });
    this.#election = new LeaderElection({
      store: options.store,
      ...(options.leaderPollMs === undefined ? {} : { pollMs: options.leaderPollMs }),
      logger: this.#logger,
      ...(options.timers ? { timers: options.timers } : {}),
      onLead: () => this.#scheduler.request('start'),
      onRole: (leading) => {
        options.metrics?.setLeader(leading);
        // Standing by from now: the manifest is looked at once (and on every change), below.
        if (!leading && this.#leading !== false) this.#scheduler.request('change');
        this.#leading = leading;
        this.emit(leading ? 'leading' : 'standby');
      },
    });
    this.#watcher = new ManifestWatcher({
      file: options.manifest,
      debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
      onChange: () => this.#scheduler.request('change'),
      logger: options.logger,
      timers: options.timers,
    });
  }

  /** Starts watching, then the first run; resolves once the watcher is in place (not after the run). */
  async start(): Promise<void> {
    await this.#watcher.start();
    this.#logger.info(
      {
        manifest: this.#options.manifest,
        intervalMs: this.#options.intervalMs,
        observe: this.#options.dryRun,
      },
      this.#options.dryRun ? 'daemon started in observe mode (nothing is changed)' : 'daemon started',
    );
    // The first run starts once this daemon leads (at once with a file state).
    await this.#election.start();
  }

  /** Asks for a run (SIGHUP, tests); coalesced with any other pending request. */
  trigger(trigger: Exclude<Trigger, 'start'>): void {
    this.#scheduler.request(trigger);
  }

  /**
   * Stops scheduling and watching, tells the run in progress to start no new operation, and waits at
   * most `graceMs` for it. True when it finished in time (its state is then written).
   */
  async stop(graceMs: number): Promise<boolean> {
    this.#abort.abort();
    // Whatever the client waits for (a retry's pause, the rate limit's window, the key's budget) ends
    // now: the stop waits only for the requests really in flight.
    this.#client.service.stop?.();
    const finished = this.#scheduler.stop();
    await this.#watcher.close();
    const graceful = await withinGrace(finished, graceMs, this.#options.timers ?? realTimers);
    await this.#election.stop();
    return graceful;
  }

  /** Requests sent to the service and not answered yet (0 when the service does not count them). */
  get inFlight(): number {
    return this.#client.service.inFlight ?? 0;
  }

  /** True while a run is in progress (a pending one only waits behind a run in progress). */
  get busy(): boolean {
    return this.#scheduler.busy;
  }

  get lastRun(): RunReport | undefined {
    return this.#last;
  }

  /** Ready only when the manifest file is valid and the last run succeeded. */
  readiness(): Readiness {
    if (this.#abort.signal.aborted) return { ready: false, reason: 'shutting down' };
    const failure = this.#election.failure;
    if (failure) return { ready: false, reason: `cannot use the state: ${failure}` };
    if (this.#election.standingBy) {
      return { ready: true, standby: true, reason: 'standby: another daemon leads this account' };
    }
    if (!this.#last) return { ready: false, reason: 'the first run has not finished' };
    if (!this.#source.valid) {
      const error = this.#source.firstError ?? 'not loaded';
      return this.#source.inForce
        ? { ready: false, reason: `manifest invalid (the last good one stays in force): ${error}` }
        : { ready: false, reason: `no valid manifest: ${error}` };
    }
    if (this.#last.result !== 'success') {
      return { ready: false, reason: `last run: ${this.#last.result}${suffix(this.#last.reason)}` };
    }
    return { ready: true, reason: 'ready' };
  }

  /** One run; true when it read the whole account (a resync: the interval counts from its end). */
  async #run(triggers: Trigger[]): Promise<boolean> {
    // On standby nothing is listed, planned or written (the leader does it); the file is looked at for
    // websites_sync_manifest_valid, which every replica shows.
    const leadership = this.#election.leading;
    if (!leadership) {
      await this.#source.refresh();
      this.#options.metrics?.setManifestValid(this.#source.valid);
      return false;
    }
    const run = ++this.#runs;
    const startedAt = this.#now();
    this.emit('run-started', { run, triggers });
    const logger = this.#options.logger.child({ run });
    const rate = this.#options.rateBudget;
    const asked = triggers.includes('change') || triggers.includes('signal');
    rate?.budget.use(asked ? 1 : rate.periodic);
    let end: RunEnd;
    this.#readWhole = false;
    this.#plannedWhole = false;
    try {
      end = await this.#attempt(logger, triggers, leadership);
    } catch (error) {
      // Shutdown while the account was being read: nothing was changed, nothing failed.
      const interrupted = error instanceof Interrupted;
      end = {
        result: interrupted ? 'interrupted' : 'failure',
        outcomes: [],
        reason: error instanceof Error ? error.message : String(error),
      };
      if (!interrupted) this.#health.failed(error);
    }
    // Only a resync that planned meets again every condition that still stands (an edit reads part of
    // the account; a resync that failed before planning, the service down, met none).
    if (this.#plannedWhole) this.#conditions.settle(logger);
    this.#finish({ run, triggers, durationMs: this.#now() - startedAt, ...end }, logger);
    return this.#readWhole;
  }

  async #attempt(logger: Logger, triggers: Trigger[], leadership: Leadership): Promise<RunEnd> {
    const { changed } = await this.#source.refresh();
    this.#options.metrics?.setManifestValid(this.#source.valid);
    this.#health.validity(this.#source.valid, this.#source.firstError ?? '');
    const manifest = this.#source.inForce;
    // A change to an invalid file brings nothing new to apply; resyncs go on with the last good one.
    if (!manifest || (changed && !this.#source.valid)) {
      return { result: 'invalid_manifest', outcomes: [], reason: this.#source.firstError };
    }
    if (this.#abort.signal.aborted) return { result: 'interrupted', outcomes: [], reason: 'shutting down' };
    // A new key in the key file: a new client, which has read nothing yet (see ServiceInUse).
    if (await this.#client.beforeRun()) this.#known.forget();
    // An edit of the manifest is applied without reading the whole account again (see KnownListing).
    const edit = triggers.every((trigger) => trigger === 'change');
    const read = edit ? this.#known.targetedRead(manifest.desired, this.#client.service, logger) : undefined;
    this.#readWhole = read === undefined;
    if (this.#readWhole) this.#conditions.begin();
    const result = await this.#reconcile({ manifest, logger, read, leadership }).catch((error: unknown) => {
      this.#known.forget();
      throw error;
    });
    this.#known.remember(result, manifest.desired);
    if (!read) this.#planLimit = result.planLimit;
    this.#plannedWhole = !read;
    this.#health.completed();
    notifyRun(this.#options.notifier, result, { triggers, dryRun: this.#options.dryRun });
    const dryRun = this.#options.dryRun;
    return endOfRun(result, {
      dryRun,
      logger,
      conditions: this.#conditions,
      tell: (warnings) => this.#warnings.tell(warnings, true),
    });
  }

  #reconcile(run: {
    manifest: GoodManifest;
    logger: Logger;
    read: (() => Promise<RemoteWebsite[]>) | undefined;
    leadership: Leadership;
  }): Promise<ReconcileResult> {
    const { manifest, logger, read } = run;
    const options = this.#options;
    return reconcile({
      ...(read ? { read } : {}),
      desired: manifest.desired,
      warnings: manifest.warnings,
      service: this.#client.service,
      baseUrl: options.baseUrl,
      secret: this.#client.secret,
      previousSecrets: this.#client.previousSecrets,
      state: run.leadership,
      prune: options.prune || manifest.desired.prune,
      ...(options.deleteDelayMs === undefined ? {} : { deleteDelayMs: options.deleteDelayMs }),
      ...(options.trafficWindowDays === undefined ? {} : { trafficWindowDays: options.trafficWindowDays }),
      ...(options.trafficGuard === undefined ? {} : { trafficGuard: options.trafficGuard }),
      // The account's plan is read once per resync; an edit of the manifest uses the last one read.
      ...(read && this.#planLimit ? { planLimit: this.#planLimit } : {}),
      now: this.#now,
      force: options.force,
      dryRun: options.dryRun,
      concurrency: options.concurrency,
      logger,
      signal: this.#abort.signal,
      runBy: options.runBy ?? 'websites-sync (daemon)',
      warningsLogged: true,
      conditions: this.#conditions,
      onApply: () => options.rateBudget?.budget.use(1),
    });
  }

  #finish(report: RunReport, logger: Logger): void {
    this.#last = report;
    this.#options.metrics?.recordRun({
      result: report.result,
      durationSeconds: report.durationMs / 1000,
      finishedAt: this.#now(),
      outcomes: report.outcomes,
      managed: this.#source.inForce?.desired.websites.length,
      ...(report.summary
        ? {
            heldBack: heldBackOf(report.summary),
            refusedDeletes: refusedDeletesOf(report.result, report.summary),
          }
        : {}),
    });
    logRun(report, logger);
    this.emit('run-finished', report);
  }
}
