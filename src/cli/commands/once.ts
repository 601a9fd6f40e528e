import { connect } from '../../reconcile/connect.js';
import { reconcile } from '../../reconcile/reconcile.js';
import { type Config, requireService } from '../args.js';
import { EXIT } from '../errors.js';
import { loadOrExit } from '../load.js';
import { createLogger } from '../logger.js';
import { renderReport, useColor } from '../output.js';
import type { Io } from '../run.js';
import { VERSION } from '../version.js';

/** `--once` and `--once --dry-run`: one reconcile, then an exit status. */
export async function runOnce(config: Config, io: Io): Promise<number> {
  // The manifest is checked before anything else: an invalid one makes no request at all.
  const { desired, warnings } = await loadOrExit(config.manifest, io.env, io.stderr);
  const { baseUrl, apiKey } = requireService(config);
  const logger = createLogger({ level: config.logLevel });
  const client = connect({
    baseUrl,
    apiKey,
    version: VERSION,
    timeoutMs: config.timeoutMs,
    concurrency: config.concurrency,
  });
  try {
    const result = await reconcile({
      desired,
      warnings,
      service: client.service,
      baseUrl,
      statePath: config.stateFile,
      prune: config.prune || desired.prune,
      force: config.force,
      dryRun: config.dryRun,
      concurrency: config.concurrency,
      logger,
    });
    io.stdout.write(renderReport(result, config.output, useColor(process.stdout, io.env)));
    if (result.refused) {
      io.stderr.write(`websites-sync: refused: ${result.refused}\n`);
      return EXIT.refused;
    }
    if (result.applied?.authError) throw result.applied.authError;
    if (result.applied && result.applied.failed > 0) return EXIT.error;
    if (config.dryRun && config.detailedExitcode && result.plan.changes.length > 0) return EXIT.changes;
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
