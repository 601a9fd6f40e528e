import type { Logger } from 'pino';
import type { Outcome } from '../apply/index.js';
import type { ConditionSink, DesiredState, RemoteWebsite } from '../model/index.js';
import type { Plan } from '../plan/index.js';
import type { SavedPlanFile } from '../saved-plan/index.js';
import type { WebsiteService } from '../service/index.js';
import type { StateAccess } from '../state/index.js';
import type { GuardOptions } from './guards.js';

// What one pass of the pipeline takes (the one-shot CLI, the daemon and the Action hand it over).

export interface ReconcileOptions extends GuardOptions {
  desired: DesiredState;
  /** Manifest warnings, carried into the plan so every format shows them. */
  warnings: string[];
  service: WebsiteService;
  baseUrl: string;
  /** Keys fingerprints in the state and saved plans: derived from the API key, never written. */
  secret: string;
  /**
   * The secrets of API keys used before a rotation (`--previous-api-key-file`; a daemon's, the key it
   * replaced): fingerprints made with them are recognised, and recorded again under `secret`. Never sent.
   */
  previousSecrets?: readonly string[];
  /**
   * Where the state and the backups of deleted websites live (a file, PostgreSQL: chosen at start-up):
   * a run that may write takes its lock; a daemon's leader hands over its leadership.
   */
  state: StateAccess;
  prune: boolean;
  /** `--delete-delay` / WEBSITES_SYNC_DELETE_DELAY; else the manifest's `delete_delay`; else 0. */
  deleteDelayMs?: number;
  /** The clock (milliseconds since the epoch); Date.now by default. */
  now?: () => number;
  force: boolean;
  dryRun: boolean;
  concurrency: number;
  logger: Logger;
  signal?: AbortSignal;
  /**
   * Reads the account instead of listing every page (the daemon's re-read of what a manifest edit
   * touched). Its records are read one by one, exactly, so its creates and deletes need no confirming.
   */
  read?: () => Promise<RemoteWebsite[]>;
  /** `--adopt`: unknown write-only fields of existing websites are recorded as declared, not sent. */
  adopt?: boolean;
  /** The plan about to be applied, before its first operation (the CLI prints it first). */
  onApply?: (plan: Plan) => void;
  /** Each operation attempted, as it completes. */
  onOutcome?: (outcome: Outcome) => void;
  /**
   * `--plan`: execute exactly this saved plan instead of a fresh one, and only if nothing it depends on
   * changed (`prune` is then the saved plan's; its `force` adds to this one's).
   */
  saved?: { file: SavedPlanFile; version: string; text: string };
  /** What this run is, as a run waiting for the state's lock is told: `websites-sync --once`. */
  runBy?: string;
  /** The caller logs every warning of the plan (the daemon, once each): none is logged here as well. */
  warningsLogged?: boolean;
  /** A daemon's: what every resync meets again (no state yet) is said once while it stands. */
  conditions?: ConditionSink;
}
