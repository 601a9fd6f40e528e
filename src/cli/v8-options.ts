import { setFlagsFromString } from 'node:v8';

// V8 options set while the CLI runs rather than on Node's command line (its shebang): V8 counts most of
// its options in a hash that Node compares with the one its built-in modules' code cache was made
// under, and on a mismatch compiles the built-in modules from source (node:crypto: 15 ms instead of 5).
// On the command line that is every module a run loads; set while running, only those loaded after.
// `--max-semi-space-size`, the one option in the shebang, is not counted. test/e2e/bin.test.ts checks
// both.

let set = false;

/**
 * Sets a run's V8 options, once, before it reads its manifest or connects (the options are below). The
 * built-in modules its service client loads only when it first connects are loaded before: node:tls
 * and its parts, for an https:// service, take 10 ms from their cache and 26 ms from source.
 */
export function setRunOptions(baseUrl: string | undefined): void {
  if (set) return;
  set = true;
  if (baseUrl !== undefined && /^https:/i.test(baseUrl)) process.getBuiltinModule('node:tls');
  // The old generation grows 25% beyond what survived its last full collection (V8's default: up to
  // several times that), so a large plan's transient garbage (the manifest's YAML tree, list pages) is
  // collected before it doubles the peak RSS: a converged 100,000-website plan peaks near 200 MB
  // instead of 290 MB, for about 0.3 s more CPU. Not from the start, because while the modules load it
  // would only add collections.
  setFlagsFromString('--heap-growing-percent=25');
  // Keeps undici's HTTP parser (llhttp, compiled to WebAssembly when the first connection opens) in
  // V8's baseline compiler. With V8's default budget (13,000,000) the first response sends the parser's
  // main function to the optimizing compiler, about 50 ms of CPU and 20 MB on a worker thread, which a
  // short run then waits for at exit. The baseline code parses a response's head in microseconds; at
  // this budget 3,000 responses in a row did not trigger the optimizing compiler.
  setFlagsFromString('--wasm-tiering-budget=100000000');
}
