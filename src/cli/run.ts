import { AuthError, ServiceError } from '../service/errors.js';
import { runSimulatorCommand } from '../simulator/cli.js';
import { parseConfig } from './args.js';
import { runDaemon } from './commands/daemon.js';
import { runExport } from './commands/export.js';
import { runOnce } from './commands/once.js';
import { runValidate } from './commands/validate.js';
import { EXIT, ExitError, UsageError } from './errors.js';
import { HELP } from './help.js';
import { VERSION } from './version.js';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** Parses, dispatches, and maps every error to an exit status: the only top-level handler. */
export async function run(argv: string[], io: Io): Promise<number> {
  try {
    const config = parseConfig(argv, io.env);
    switch (config.command) {
      case 'help':
        io.stdout.write(HELP);
        return EXIT.ok;
      case 'version':
        io.stdout.write(`websites-sync ${VERSION}\n`);
        return EXIT.ok;
      case 'validate':
        return await runValidate(config, io);
      case 'simulator':
        return await runSimulatorCommand(config.rest);
      case 'export':
        return await runExport(config, io);
      case 'sync':
        // Without --once: the daemon; with --dry-run it is observe mode (logs every plan, changes nothing).
        if (!config.once) return await runDaemon(config, io);
        return await runOnce(config, io);
    }
  } catch (error) {
    return reportError(
      error,
      io,
      argv.includes('--log-level=debug') || io.env.WEBSITES_SYNC_LOG_LEVEL === 'debug',
    );
  }
}

function reportError(error: unknown, io: Io, debug: boolean): number {
  if (error instanceof ExitError) {
    if (error.message) io.stderr.write(`websites-sync: ${error.message}\n`);
    return error.code;
  }
  if (error instanceof UsageError || error instanceof AuthError || error instanceof ServiceError) {
    io.stderr.write(`websites-sync: ${error.message}\n`);
    return EXIT.error;
  }
  // Not one of ours: a bug. The stack helps only with debug logging.
  const message =
    error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
  io.stderr.write(`websites-sync: internal error: ${message}\n`);
  return EXIT.error;
}
