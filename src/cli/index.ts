// The command line's door for the other front door, the GitHub Action (src/action/): the pieces both
// need to turn settings into a run — the option table's parser, the service client built from it, the
// manifest loaded or reported, the report renderers — so the Action reads options exactly as the CLI
// does and never runs the CLI as a child process.
export { type Config, parseConfig } from './args.js';
export { connectFromConfig } from './connect.js';
export { EXIT, ExitError, UsageError } from './errors.js';
export { type Io, showing } from './io.js';
export { loadOrExit } from './load.js';
export { commandLogger } from './logger.js';
export { notifyRun } from './notify-run.js';
export { OPTION_TABLE, type OptionName } from './options.js';
export { renderReport } from './output.js';
export { openStoreFromConfig } from './state-store.js';
export { VERSION } from './version.js';
