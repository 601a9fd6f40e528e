// The second half of `npm run build`: bundles the CLI (src/cli/main.ts and everything it imports,
// dependencies included) into dist/cli/main.js and its lazily loaded chunks, over tsc's dist/cli/main.js.
// One file per command instead of hundreds of modules to resolve and read halves start-up; the other
// dist/ modules (tsc's) stay for the library-style imports of the tests and the benchmark.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outdir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
const CHUNK = /^bundle-.*\.js(\.map)?$/;
// `--check-action` (CI: .ci/run) only builds the Action and compares it with the committed file: the
// CLI's bundle in dist/ is left as it is.
const checkAction = process.argv.includes('--check-action');

// The alias below gives the bundle only part of undici: refuse to build if src/ imports a value it lacks
// (a missing name would be undefined at run time, not an error at build time).
const LITE = fileURLToPath(new URL('./undici-lite.cjs', import.meta.url));
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

if (!checkAction) {
  for (const name of readdirSync(outdir)) if (CHUNK.test(name)) rmSync(`${outdir}${name}`);
  await build({
    entryPoints: [fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))],
    outdir,
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
    plugins: [withoutHttp2, englishZod],
    // As in Node's own build of undici: its HTTP/1 parser is llhttp, and the experimental Milo parser
    // (UNDICI_USE_MILO=1, 150 kB of WebAssembly in base64) is left out.
    define: { esbuildDetection: 'true' },
    logLevel: 'warning',
  });
  // Installed as the `websites-sync` command, it runs through its shebang.
  chmodSync(`${outdir}main.js`, 0o755);
}

// The GitHub Action (action.yml): one file, committed, run by the runner as it is (no npm install).
// It must be the same bytes from the same sources on every machine, since CI rebuilds it and compares
// (`node scripts/bundle.mjs --check-action`): no source map, no absolute path, no build date, the
// version inlined from package.json instead of read beside the bundle.
const root = fileURLToPath(new URL('../', import.meta.url));
const actionFile = `${root}action/index.mjs`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const inlineVersion = {
  name: 'inline-version',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/]cli[\\/]version\.ts$/ }, () => ({
      contents: `export const VERSION = ${JSON.stringify(version)};`,
      loader: 'ts',
    }));
  },
};
const action = await build({
  absWorkingDir: root,
  entryPoints: ['src/action/main.ts'],
  bundle: true,
  write: false,
  outfile: actionFile,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  charset: 'utf8',
  // Module paths are written into the bundle: node_modules as named in the tree (a worktree may link
  // it from elsewhere), not where the link points.
  preserveSymlinks: true,
  minifyWhitespace: true,
  minifySyntax: true,
  // The licences of the bundled dependencies travel with their code.
  legalComments: 'eof',
  banner: {
    js: "// Built by scripts/bundle.mjs from src/action/ (npm run build); do not edit.\nimport { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  plugins: [inlineVersion],
  logLevel: 'warning',
});
const bundled = action.outputFiles[0].text;
if (checkAction) {
  let committed = '';
  try {
    committed = readFileSync(actionFile, 'utf8');
  } catch {}
  if (committed !== bundled) {
    console.error(`${actionFile} is not what src/ builds; run: npm run build, and commit action/index.mjs`);
    process.exit(1);
  }
  console.log(`${actionFile} is up to date`);
} else {
  mkdirSync(`${root}action`, { recursive: true });
  writeFileSync(actionFile, bundled);
}
