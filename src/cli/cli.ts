// The CLI's code, as one script (dist/cli/cli.cjs): main.js catches the signals, then runs this from its
// code cache (script-cache.ts) and saves the cache once the run is over.
import type { ProcessSignals } from './early-signals.js';
import { EXIT } from './errors.js';
import { processIo } from './io.js';
import { run } from './run.js';
import type { CacheKind } from './script-cache.js';

export { restoreDefaults } from './v8-options.js';

/** What a run that planned returns: no change, changes (dry run), or changes refused by a guard. */
const PLANNED: ReadonlySet<number> = new Set([EXIT.ok, EXIT.changes, EXIT.refused]);

/**
 * Runs the command line `argv`: its exit status, and which cache the run makes (script-cache.ts). A
 * run of the service's cache is made by one that got as far as a plan, and `validate`'s by one that
 * found the manifest valid: one that stopped before (an invalid manifest, a refused key) compiled too
 * little of what the next runs need.
 */
export async function main(
  argv: string[],
  signals: ProcessSignals,
): Promise<{ exitCode: number; cacheKind: CacheKind }> {
  let ran: string | undefined;
  const exitCode = await run(argv, { ...processIo(), signals }, (command, { keepsStacks }) => {
    ran = command;
    // No stack is recorded that nothing would show (run.ts keeps them at the debug and trace levels,
    // and in the daemon): reading an error's stack makes V8 find the line ends of the whole script its
    // frames are in, and Node reads the stack of every error a socket is destroyed with, as undici's
    // each time a run closes its connections (this script: about 3% of a one-website dry run).
    if (!keepsStacks) Error.stackTraceLimit = 0;
  });
  if (ran === 'sync' && PLANNED.has(exitCode)) return { exitCode, cacheKind: 'sync' };
  return { exitCode, cacheKind: ran === 'validate' && exitCode === EXIT.ok ? 'validate' : 'other' };
}
