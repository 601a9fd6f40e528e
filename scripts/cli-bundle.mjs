// How the CLI is bundled (scripts/bundle.mjs), shared with the benchmark's start-up floor
// (bench/lib/startup-floor.mjs), which must load its dependencies exactly as the CLI does.
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
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === 'import-statement' ? { path: args.path, namespace: 'builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** esbuild's options for the CLI's bundle, but its entry points and output. */
export const CLI_BUNDLE = {
  bundle: true,
  // Each command (daemon, simulator, export…) stays in chunks of its own, loaded only when it runs.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Flat beside main.js: modules that find files relative to themselves (package.json) keep their depth.
  chunkNames: 'bundle-[name]-[hash]',
  // Less to read and compile at every start; identifiers keep their names for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'linked',
  // Dependencies written as CommonJS call require(); an ES module bundle has to provide it.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  // Only the part of undici the service client uses (see undici-lite.cjs).
  alias: { undici: LITE },
  plugins: [withoutHttp2, englishZod, builtinsByRequire],
  // As in Node's own build of undici: its HTTP/1 parser is llhttp, and the experimental Milo parser
  // (UNDICI_USE_MILO=1, 150 kB of WebAssembly in base64) is left out.
  define: { esbuildDetection: 'true' },
  logLevel: 'warning',
};
