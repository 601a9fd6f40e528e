// The second half of `npm run build`: bundles the CLI into two files, over tsc's dist/cli/main.js: its
// code (src/cli/cli.ts and everything it imports, dependencies included) into dist/cli/cli.cjs, and the
// loader that runs it from its code cache (src/cli/main.ts) into dist/cli/main.js. One script instead of
// hundreds of modules to resolve and read halves start-up; the other dist/ modules (tsc's) stay for the
// library-style imports of the tests and the benchmark.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { CLI_SCRIPT, checkUndiciImports, cliLoader, identifiedScript } from './cli-bundle.mjs';

const outdir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
// The files this writes, and the chunks of the ES module bundle the CLI was before.
const OURS = /^(bundle-.*\.js|cli\.cjs)(\.map)?$/;
// `--check-action` (CI: .ci/run) only builds the Action and compares it with the committed file: the
// CLI's bundle in dist/ is left as it is.
const checkAction = process.argv.includes('--check-action');

if (!checkAction) {
  checkUndiciImports();
  for (const name of readdirSync(outdir)) if (OURS.test(name)) rmSync(`${outdir}${name}`);
  const script = await build({
    ...CLI_SCRIPT,
    entryPoints: [fileURLToPath(new URL('../src/cli/cli.ts', import.meta.url))],
    outfile: `${outdir}cli.cjs`,
    write: false,
  });
  const built = identifiedScript(script.outputFiles.find((file) => file.path.endsWith('.cjs')).text);
  for (const file of script.outputFiles) {
    writeFileSync(file.path, file.path.endsWith('.cjs') ? built.text : file.contents);
  }
  await build({
    ...cliLoader(built.id),
    entryPoints: [fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))],
    outfile: `${outdir}main.js`,
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
