// How the CLI is bundled (scripts/bundle.mjs), shared with the benchmark's start-up floor
// (bench/lib/startup-floor.mjs), which must load its dependencies exactly as the CLI does.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The alias below gives the bundle only part of undici: refuse to build if src/ imports a value it lacks
// (a missing name would be undefined at run time, not an error at build time).
export const LITE = fileURLToPath(new URL('./undici-lite.cjs', import.meta.url));
export function checkUndiciImports() {
  const provided = new Set(Object.keys(createRequire(import.meta.url)(LITE)));
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  for (const file of readdirSync(src, { recursive: true })) {
    if (!String(file).endsWith('.ts')) continue;
    const text = readFileSync(`${src}${file}`, 'utf8');
    for (const [, names] of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'undici'/g)) {
      for (const name of names.split(',').map((n) => n.trim())) {
        if (name && !name.startsWith('type ') && !provided.has(name.split(/\s+as\s+/)[0])) {
          throw new Error(`src/${file} imports ${name} from undici: add it to scripts/undici-lite.cjs`);
        }
      }
    }
  }
}

// undici's HTTP/2 client is required by its Client at load time, but used only when a server agrees to
// h2, which the service client never offers (allowH2: false in src/service/http.ts: the simulator and
// the tests speak HTTP/1.1, so production does too). Left out, every run reads and compiles less.
const withoutHttp2 = {
  name: 'without-http2',
  setup(b) {
    b.onResolve({ filter: /[/\\]client-h2(\.js)?$/ }, (args) =>
      args.importer.includes('undici') ? { path: 'client-h2', namespace: 'without-http2' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'without-http2' }, () => ({
      contents:
        "module.exports = () => { throw new Error('websites-sync speaks HTTP/1.1 only (allowH2: false)'); };",
      loader: 'js',
    }));
  },
};

// pino's `caller` module asks Node for the stack of every `pino()` call (util.getCallSites), so that a
// transport named by a relative path resolves beside the code that named it. Placing those frames makes
// V8 find the line ends of the whole script they are in: this one, at every start. The CLI gives pino
// streams, never a transport (src/cli/logger.ts), so in the bundle it has no callers to find.
const withoutPinoCaller = {
  name: 'without-pino-caller',
  setup(b) {
    b.onResolve({ filter: /^\.\/(lib\/)?caller(\.js)?$/ }, (args) =>
      /[/\\]pino[/\\]/.test(args.importer) ? { path: 'caller', namespace: 'without-pino-caller' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'without-pino-caller' }, () => ({
      contents: 'module.exports = () => [];',
      loader: 'js',
    }));
  },
};

// zod's index re-exports every locale's error messages (64 languages, most of its size); ours are in
// English and written by the manifest stage, so the bundle keeps zod's English only.
const englishZod = {
  name: 'english-zod',
  setup(b) {
    b.onResolve({ filter: /[/\\]locales[/\\]index\.js$/ }, (args) =>
      args.importer.includes('zod')
        ? { path: join(dirname(args.importer), args.path), namespace: 'english-zod' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'english-zod' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

// Node's built-in modules are required, not imported. An `import ... from 'node:fs'` makes Node build the
// module's ES facade, which reads every export and so runs its lazy getters: `node:fs` loads fs.promises
// and its file handles, `node:util` its MIME and text codecs, `node:http` Node's own copy of undici (34,
// 34 and 113 internal modules, against 1, 1 and 39 for require()). A require() reads only what is used.
// The required module is handed to the importer without esbuild's CommonJS interop (`__toESM`), which
// reads the descriptor of every export and so runs the same getters (`node:util`: worker_threads and
// its diff, about 30 internal modules in a fresh process): an import of names gets a module that
// exports those names, read from the required module, and nothing else. An import of the whole module
// (default or namespace), or a re-export from it, keeps the interop.
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => {
      if (args.kind !== 'import-statement') return undefined;
      const names =
        args.namespace === 'file' ? importedNames(readFileSync(args.importer, 'utf8'), args.path) : undefined;
      return names
        ? { path: `${args.path}#${names.join(',')}`, namespace: 'builtin-names' }
        : { path: args.path, namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-names' }, (args) => {
      const [specifier, names] = args.path.split('#');
      const exports = names.split(',').map((name) => `export const ${name} = builtin.${name};`);
      return {
        contents: [`const builtin = require(${JSON.stringify(specifier)});`, ...exports].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * The names that `source` imports from `specifier`, sorted, or undefined when one of its imports takes
 * the whole module (a default or namespace import) or is not one this reads, or when it re-exports
 * from the module: esbuild reports a re-exported name the module lacks at run time only, as undefined.
 * A name missing from an import fails the build (esbuild: no matching export), never the run.
 */
export function importedNames(source, specifier) {
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  if (new RegExp(`\\bexport\\s[^;'"]*?from\\s*['"]${quoted}['"]`).test(source)) return undefined;
  const names = new Set();
  for (const [, clause] of source.matchAll(
    new RegExp(`\\bimport\\s+([^;'"]*?)\\s*from\\s*['"]${quoted}['"]`, 'g'),
  )) {
    const list = /^(type\s+)?\{([^}]*)\}$/.exec(clause.trim());
    if (!list) return undefined;
    if (list[1]) continue;
    for (const entry of list[2].split(',')) {
      const [name = '', typeOnly] = entry
        .trim()
        .split(/\s+as\s+/)[0]
        .split(/\s+/)
        .reverse();
      if (typeOnly === 'type' || name === '') continue;
      if (typeOnly !== undefined || name === 'default' || !/^[A-Za-z_$][\w$]*$/.test(name)) return undefined;
      names.add(name);
    }
  }
  return names.size > 0 ? [...names].sort() : undefined;
}

// What the CLI's two files share: everything bundled and minified, and the same subsets of undici and zod.
const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  // Less to read at every start.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // Only the part of undici the service client uses (see undici-lite.cjs).
  alias: { undici: LITE },
  plugins: [withoutHttp2, withoutPinoCaller, englishZod, builtinsByRequire],
  logLevel: 'warning',
};

/**
 * esbuild's options for the CLI's code, but its entry point and output: one CommonJS script (the CLI's
 * is dist/cli/cli.cjs) that the loader runs from a code cache made after a run (src/cli/script-cache.ts).
 * A module imported with `import()` (each command: daemon, simulator, export…) is evaluated only when the
 * run imports it, as in an ES module bundle; it is only read and compiled with the rest.
 */
export const CLI_SCRIPT = {
  ...COMMON,
  // Short names too: a third less script to read, hash and find line ends in, and a smaller code cache
  // to deserialize (a one-website dry run: about 5% fewer instructions). A stack trace then names
  // minified functions; the error and its message are the same, and the build's source map
  // (dist/cli/cli.cjs.map, not shipped) maps a stack's positions back to src/.
  minifyIdentifiers: true,
  format: 'cjs',
  sourcemap: 'linked',
  // A module that finds files relative to itself (package.json, a dependency it requires on demand)
  // is given the script's own URL: the script sits beside main.js, at the same depth as its sources.
  // The banner comes before esbuild's own "use strict", which is then no longer a directive: it says it
  // first, or the CLI's code, written as ES modules (always strict), would run in sloppy mode.
  banner: { js: '"use strict";const __scriptUrl = require(\'node:url\').pathToFileURL(__filename).href;' },
  // As in Node's own build of undici: its HTTP/1 parser is llhttp, and the experimental Milo parser
  // (UNDICI_USE_MILO=1, 150 kB of WebAssembly in base64) is left out.
  define: { esbuildDetection: 'true', 'import.meta.url': '__scriptUrl' },
};

/**
 * esbuild's options for the loader (dist/cli/main.js, the `websites-sync` command), but its entry point
 * and output: an ES module that catches signals, then runs the script; `id`, a hash of the script,
 * names the script's code cache.
 */
export function cliLoader(id) {
  return {
    ...COMMON,
    format: 'esm',
    // Built-in modules are required (builtinsByRequire): an ES module has to provide require().
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    define: { CLI_SCRIPT_ID: JSON.stringify(id) },
  };
}

/** The id of a built script: names its code cache, which V8 checks only against the script's length. */
function scriptId(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * A script as esbuild built it (`text`), as it is written: ended by the line of its id, which the loader
 * built with that id checks (src/cli/script-cache.ts) before it reads or makes a code cache. A loader
 * and a script of two builds (an install replaced while a run starts, a build stopped between the two
 * files) made a cache from one script named for the other, which V8 then ran in its place.
 */
export function identifiedScript(text) {
  const id = scriptId(text);
  return { id, text: `${text}${scriptIdLine(id)}` };
}

/** The last line of the script whose id is `id` (src/cli/script-cache.ts writes it the same way). */
export function scriptIdLine(id) {
  return `//# websites-sync-script=${id}\n`;
}
