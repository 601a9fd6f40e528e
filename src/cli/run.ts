import { type Config, parseConfig } from './args.js';
import { EXIT, ExitError, UsageError } from './errors.js';
import { helpFor } from './help.js';
import type { Io } from './io.js';
import { VERSION } from './version.js';

/**
 * Parses, dispatches, and maps every error to an exit status: the only top-level handler. Each command
 * is loaded when it runs, so `validate` or `--help` does not pay for the daemon's HTTP server and
 * metrics (start-up time counts in CI and in every one-shot run).
 */
export async function run(
  argv: string[],
  io: Io,
  onCommand?: (command: Config['command'], run: { keepsStacks: boolean }) => void,
): Promise<number> {
  let logLevel = io.env.WEBSITES_SYNC_LOG_LEVEL;
  try {
    const config = parseConfig(argv, io.env);
    logLevel = config.logLevel ?? logLevel;
    // A stack is kept where one may be shown: at the debug and trace levels (reportError), and in the
    // daemon, whose crash after weeks Node prints with it (what a bug report needs).
    const daemon = config.command === 'sync' && !config.once;
    onCommand?.(config.command, { keepsStacks: daemon || showsStacks(logLevel) });
    // Only the daemon and `--once` act on signals; any other command is stopped by them as usual.
    if (config.command !== 'sync') await io.signals?.release();
    switch (config.command) {
      case 'help':
        io.stdout.write(helpFor(config.helpFor));
        return EXIT.ok;
      case 'version':
        io.stdout.write(`websites-sync ${VERSION}\n`);
        return EXIT.ok;
      case 'validate':
        return await (await import('./commands/validate.js')).runValidate(config, io);
      case 'simulator':
        return await (await import('./commands/simulator.js')).runSimulatorCommand(config.rest);
      case 'export':
        return await (await import('./commands/export.js')).runExport(config, io);
      case 'restore':
        return await (await import('./commands/restore.js')).runRestore(config, io);
      case 'state':
        return await (await import('./commands/state.js')).runState(config, io);
      case 'schema':
        return (await import('./commands/schema.js')).runSchema(io);
      case 'sync':
        // Without --once: the daemon; with --dry-run it is observe mode (logs every plan, changes nothing).
        if (!config.once) return await (await import('./commands/daemon.js')).runDaemon(config, io);
        return await (await import('./commands/once.js')).runOnce(config, io);
    }
  } catch (error) {
    return await reportError(error, io, showsStacks(logLevel));
  }
}

/** The stack of an unexpected error is shown at the debug and trace levels, however they were asked for. */
function showsStacks(logLevel: string | undefined): boolean {
  return logLevel === 'debug' || logLevel === 'trace';
}

/**
 * An error as one line and an exit status. The service's and the state's error classes are loaded only
 * here: imported at the top, they would load the HTTP client (undici) into every command's start-up,
 * `--version` and `validate` included, for an `instanceof` that only a failure needs.
 */
async function reportError(error: unknown, io: Io, debug: boolean): Promise<number> {
  if (error instanceof ExitError) {
    if (error.message) io.stderr.write(`websites-sync: ${error.message}\n`);
    return error.code;
  }
  const [{ AuthError, ServiceError }, { StateLockError }] = await Promise.all([
    import('../service/index.js'),
    import('../state/index.js'),
  ]);
  if (
    error instanceof UsageError ||
    error instanceof AuthError ||
    error instanceof ServiceError ||
    error instanceof StateLockError
  ) {
    io.stderr.write(`websites-sync: ${error.message}\n`);
    return EXIT.error;
  }
  // Not one of ours: a bug. The stack helps only with debug logging.
  const message =
    error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
  io.stderr.write(`websites-sync: internal error: ${message}\n`);
  return EXIT.error;
}
