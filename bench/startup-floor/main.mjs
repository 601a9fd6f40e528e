// The start-up floor: a process that loads what the CLI's one-shot dry run cannot do without, from its
// runtime dependencies, bundled as the CLI is (scripts/cli-bundle.mjs), and makes the same two requests,
// with none of the tool's own work. bench/lib/startup-floor.mjs bundles it next to the run's files, and
// the start-up row shows it beside `node -e 0`: what the tool's own code adds is the difference.
// Like dist/cli/main.js: Node's compile cache first (in the same kind of directory), then the work, one
// script run from its own code cache, saved after the run.
import { enableOwnCompileCache } from '../../src/cli/compile-cache.ts';
import { loadScript } from '../../src/cli/script-cache.ts';

enableOwnCompileCache();
// CLI_SCRIPT_ID is written in by the build (cliLoader).
const work = loadScript(new URL('./work.cjs', import.meta.url).pathname, CLI_SCRIPT_ID);
await work.exports.dryRun(process.argv[2], process.env.WEBSITES_SYNC_API_KEY);
work.save('sync', work.exports.restoreDefaults);
