import { setFlagsFromString } from 'node:v8';

// V8 options set while the CLI runs rather than on Node's command line (its shebang): V8 counts most of
// its options in a hash that Node compares with the one its built-in modules' code cache was made
// under, and on a mismatch compiles the built-in modules from source (node:crypto: 15 ms instead of 5).
// On the command line that is every module a run loads; set while running, only those loaded after:
// node:tls is loaded first when a run will need it; the daemon's listener, the PostgreSQL driver and a
// notification's HTTP client still compile theirs from source when they first load (a few ms, once).
// `--max-semi-space-size`, the one option in the shebang, is not counted. test/e2e/bin.test.ts checks
// the shebang, and node:tls for an https:// service.

let set = false;
let growth = false;

/** The options set here, and V8's defaults (`node --v8-options`), which a fresh process starts with. */
const HEAP_GROWTH = 25;
const DEFAULT_HEAP_GROWTH = 0;
const WASM_TIERING_BUDGET = 100_000_000;
const DEFAULT_WASM_TIERING_BUDGET = 13_000_000;

/**
 * The old generation grows 25% beyond what survived its last full collection (V8's default: up to
 * several times that), so a large plan's transient garbage (the manifest's YAML tree, list pages) is
 * collected before it doubles the peak RSS: a converged 100,000-website plan peaks near 200 MB
 * instead of 290 MB, for about 0.3 s more CPU; `validate` of a 10,000-website manifest with a typo,
 * about 100 MB instead of 130. Not from the start, because while the modules load it would only add
 * collections: set by a run and by `validate`, before the manifest is read.
 */
export function setHeapGrowth(): void {
  if (growth) return;
  growth = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWTH}`);
}

/**
 * Sets the V8 options of a run that talks to the service (below), once, early: `--once` and the daemon
 * before reading the manifest, export and the Action when they connect. node:tls, which the service
 * client loads only at its first connection, is loaded before when the run will use it (`usesTls`,
 * service-config.ts): from its cache it takes 10 ms, from source 26 ms.
 */
export function setRunOptions(usesTls: boolean): void {
  if (set) return;
  set = true;
  if (usesTls) process.getBuiltinModule('node:tls');
  setHeapGrowth();
  // Undici's HTTP parser is llhttp compiled to WebAssembly, which V8 runs in its baseline compiler until
  // the parser has spent a budget of work. With V8's default budget (13,000,000) a run's first answers
  // send the parser's main function to the optimizing compiler (about 50 ms of CPU and 20 MB on a worker
  // thread), which a short run then waits for at exit. A larger budget lets a short run end without
  // it; a long run still gets the optimized parser, later.
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

/**
 * Puts back V8's defaults of the options set here, at the end of a run, before its code cache is made
 * (script-cache.ts): V8 refuses a cache made under options other than its own, and the next run loads
 * the cache before it sets any. test/e2e/script-cache.test.ts checks that the next run accepts it.
 */
export function restoreDefaults(): void {
  if (growth) setFlagsFromString(`--heap-growing-percent=${DEFAULT_HEAP_GROWTH}`);
  if (set) setFlagsFromString(`--wasm-tiering-budget=${DEFAULT_WASM_TIERING_BUDGET}`);
  growth = false;
  set = false;
}
