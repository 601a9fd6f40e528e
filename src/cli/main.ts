#!/usr/bin/env -S node --max-semi-space-size=2
// The shebang's V8 option, `--max-semi-space-size=2`, caps the young generation at 2 × 2 MB (V8 sizes it
// from the host's memory, up to 2 × 64 MB): a large plan's peak RSS and a daemon's RSS over thousands of
// runs stay within a small container's limit (docs/explanation/benchmarks.md). Other V8 options are set
// once the run has started (v8-options.ts): on the command line they would cost Node the code cache of
// its own modules. Run as `node dist/cli/main.js`, pass it yourself.
import { enableOwnCompileCache } from './compile-cache.js';
import { catchSignals, holdStartForTests } from './early-signals.js';

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
// Before the rest is imported: the bundle's chunks are compiled once and reused from the cache (in a
// directory of the user's own, compile-cache.ts) by every later run: a fifth of a dry run's start-up.
enableOwnCompileCache();
const { processIo } = await import('./io.js');
const { run } = await import('./run.js');

process.exitCode = await run(process.argv.slice(2), { ...processIo(), signals });
