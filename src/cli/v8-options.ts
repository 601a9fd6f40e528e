import { setFlagsFromString } from 'node:v8';

// V8 options set while the CLI runs rather than on Node's command line (its shebang): V8 counts most of
// its options in a hash that Node compares with the one its built-in modules' code cache was made
// under, and on a mismatch compiles every built-in module a run loads from source (node:crypto alone
// goes from 5 to 15 ms). `--max-semi-space-size`, the one option in the shebang, is not counted.
// test/e2e/bin.test.ts checks that the shebang keeps that cache.

/**
 * Called once start-up is over: V8 then lets the old generation grow 25% beyond what survived its last
 * full collection (by default up to several times that), so a large plan's transient garbage (the
 * manifest's YAML tree, list pages) is collected before it doubles the peak RSS: a converged
 * 100,000-website plan peaks near 200 MB instead of 290 MB, for about 0.3 s more CPU. Not a command-line
 * option, because while the modules load it would only add collections to start-up.
 */
export function growHeapSlowly(): void {
  setFlagsFromString('--heap-growing-percent=25');
}

/**
 * Called before the service client's first connection: keeps undici's HTTP parser (llhttp, compiled to
 * WebAssembly when the first connection opens) in V8's baseline compiler. With V8's default budget
 * (13,000,000) the first response sends the parser's main function to the optimizing compiler, about
 * 50 ms of CPU and 20 MB on a worker thread, which a short run then waits for at exit. The baseline code
 * parses a response's head in microseconds; at this budget 3,000 responses in a row did not trigger the
 * optimizing compiler.
 */
export function keepHttpParserInBaseline(): void {
  setFlagsFromString('--wasm-tiering-budget=100000000');
}
