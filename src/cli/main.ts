#!/usr/bin/env -S node --max-semi-space-size=2 --wasm-tiering-budget=100000000
// The shebang's V8 options:
// - `--max-semi-space-size=2` caps the young generation at 2 × 2 MB (V8 sizes it from the host's memory,
//   up to 2 × 64 MB): a large plan's peak RSS and a daemon's RSS over thousands of runs stay within a
//   small container's limit (docs/benchmarks.md).
// - `--wasm-tiering-budget` (V8's default: 13,000,000) keeps undici's HTTP parser, llhttp compiled to
//   WebAssembly, in V8's baseline compiler. With the default budget the first response sends the
//   parser's main function to the optimizing compiler: about 50 ms of CPU and 20 MB on a worker thread,
//   which a short run then waits for at exit (a third of a one-website dry run's wall time). The baseline
//   code parses a response's head in microseconds; at this budget 3,000 responses in a row did not
//   trigger the optimizing compiler.
// Run as `node dist/cli/main.js`, pass them yourself.
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
// Before the rest is imported: the bundle's chunks are compiled once and reused from the cache (in the
// OS's temporary directory) by every later run, which halves start-up.
(await import('node:module')).enableCompileCache();
const { processIo } = await import('./io.js');
const { run } = await import('./run.js');

process.exitCode = await run(process.argv.slice(2), { ...processIo(), signals });
