#!/usr/bin/env -S node --max-semi-space-size=2
// The shebang's V8 option, `--max-semi-space-size=2`, caps the young generation at 2 × 2 MB (V8 sizes it
// from the host's memory, up to 2 × 64 MB): a large plan's peak RSS and a daemon's RSS over thousands of
// runs stay within a small container's limit (docs/explanation/benchmarks.md). Other V8 options are set
// once the run has started (v8-options.ts): on the command line they would cost Node the code cache of
// its own modules. Run as `node dist/cli/main.js`, pass it yourself.
import { fileURLToPath } from 'node:url';
import { enableOwnCompileCache } from './compile-cache.js';
import { catchSignals, holdStartForTests } from './early-signals.js';
import { loadScript } from './script-cache.js';

/** A hash of dist/cli/cli.cjs, written in by the build (scripts/bundle.mjs): names its code cache. */
declare const CLI_SCRIPT_ID: string;

// Checked before anything else loads: on an older Node the modules below fail with errors that say
// nothing of the version (`Cannot read properties of undefined (reading 'bind')`).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 22)) {
  process.stderr.write(
    `websites-sync needs Node.js 22.22 or newer (24 LTS recommended); this is Node.js ${process.version}\n`,
  );
  process.exit(1);
}
// Signals are caught before any other work (the imports below take a while): until a handler is
// installed, Node's default action kills the process on SIGHUP, SIGTERM or SIGINT with nothing logged or
// saved. One arriving before the command is ready is held and handed to it (early-signals.ts).
const signals = catchSignals();
await holdStartForTests(process.env);
// Before the rest is loaded: what Node loads itself (a dependency it requires) is compiled once and
// reused from its compile cache (in a directory of the user's own, compile-cache.ts) by every later run;
// the CLI's own script, from a cache of its own made at the end of a run, beside it (script-cache.ts).
enableOwnCompileCache();
const cli = loadScript(fileURLToPath(new URL('./cli.cjs', import.meta.url)), CLI_SCRIPT_ID);
const { main, restoreDefaults } = cli.exports as typeof import('./cli.js');
const { exitCode, cacheKind } = await main(process.argv.slice(2), signals);
process.exitCode = exitCode;
cli.save(cacheKind, restoreDefaults);
