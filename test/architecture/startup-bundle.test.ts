import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Issue 23 §5: what a run reads and compiles before its first request. The files the CLI bundle loads
// for `--once` (main.js, the run and once chunks, and everything they import statically) hold neither
// the `yaml` library (a valid manifest is read by the fast reader; yaml is required on first use),
// nor undici's HTTP/2 client or Milo parser, nor zod's 63 other languages. And they take Node's built-in
// modules by the names they use, never through esbuild's CommonJS interop, which reads every export's
// descriptor and so runs the module's lazy getters (node:util: worker_threads and its diff).

const dir = fileURLToPath(new URL('../../dist/cli/', import.meta.url));
const chunks = readdirSync(dir).filter((name) => name.endsWith('.js'));
const text = (name: string) => readFileSync(join(dir, name), 'utf8');

/** A file and every file it imports statically (`import(…)` loads later, on demand). */
function startupSet(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const [, next] of text(name).matchAll(/from\s*"\.\/([^"]+\.js)"/g)) visit(next as string);
  };
  for (const entry of entries) visit(entry);
  return seen;
}

/** The entry files of a `--once` run: main.js, and the run, once and io chunks it imports on demand. */
const onceEntries = ['main.js', ...chunks.filter((n) => /^bundle-(run|once|io)-/.test(n))];

it('a --once run loads no yaml, no HTTP/2 client, no Milo parser and no locale but English', () => {
  expect(onceEntries).toHaveLength(4);
  const loaded = [...startupSet(onceEntries)];
  const holding = (marker: string) => loaded.filter((name) => text(name).includes(marker));
  expect(holding('Symbol.for("yaml.')).toEqual([]);
  expect(holding('node:http2')).toEqual([]);
  expect(holding('UNDICI_USE_MILO')).toEqual([]);
  expect(holding('Nieprawidłowe')).toEqual([]); // zod's Polish messages
});

it('a --once run takes the built-in modules it imports by name, not through the CommonJS interop', () => {
  const loaded = [...startupSet(onceEntries)];
  // Each chunk's source map names the modules in it: a built-in through the interop is `builtin:node:…`,
  // one taken by names `builtin-names:node:…#names`.
  const sources = loaded.flatMap(
    (name) => (JSON.parse(text(`${name}.map`)) as { sources: string[] }).sources,
  );
  expect(sources.filter((source) => source.startsWith('builtin:'))).toEqual([]);
  expect(sources).toContain('builtin-names:node:util#parseArgs');
});
