// The CLI's code, as one script (dist/cli/cli.cjs): main.js catches the signals, then runs this from its
// code cache (script-cache.ts) and saves the cache once the run is over.
import type { ProcessSignals } from './early-signals.js';
import { processIo } from './io.js';
import { run } from './run.js';
import type { CacheKind } from './script-cache.js';

export { restoreDefaults } from './v8-options.js';

/** Runs the command line `argv`: its exit status, and which cache the run makes (script-cache.ts). */
export async function main(
  argv: string[],
  signals: ProcessSignals,
): Promise<{ exitCode: number; cacheKind: CacheKind }> {
  let cacheKind: CacheKind = 'other';
  const exitCode = await run(argv, { ...processIo(), signals }, (command) => {
    if (command === 'sync') cacheKind = 'sync';
  });
  return { exitCode, cacheKind };
}
