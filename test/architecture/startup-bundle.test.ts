import { copyFile, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, expect, it } from 'vitest';
import { CLI_SCRIPT } from '../../scripts/cli-bundle.mjs';
import { loadScript } from '../../src/cli/script-cache.js';

// Issue 23 §5: what a run evaluates before its first request. The CLI's code is one script
// (dist/cli/cli.cjs, scripts/cli-bundle.mjs) in which a module imported with `import()` is evaluated
// only when the run imports it: the modules a `--once` run evaluates are those cli.ts and the once
// command import statically. They hold neither the `yaml` library (a valid manifest is read by the
// fast reader; yaml is required on first use), nor undici's HTTP/2 client or Milo parser, nor zod's 63
// other languages. And they take Node's built-in modules by the names they use, never through
// esbuild's CommonJS interop, which reads every export's descriptor and so runs the module's lazy
// getters (node:util: worker_threads and its diff).

const root = fileURLToPath(new URL('../../', import.meta.url));
let inputs: Metafile['inputs'] = {};
let text = '';

beforeAll(async () => {
  const result = await build({
    ...CLI_SCRIPT,
    absWorkingDir: root,
    entryPoints: ['src/cli/cli.ts'],
    outfile: 'dist/cli/cli.cjs',
    write: false,
    metafile: true,
  });
  inputs = result.metafile?.inputs ?? {};
  text = result.outputFiles?.find((file) => file.path.endsWith('.cjs'))?.text ?? '';
}, 60_000);

/** The modules `entries` evaluate as they load: every static import and require, not `import()`. */
function evaluated(entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const next of inputs[path]?.imports ?? []) {
      if (next.kind !== 'dynamic-import' && !next.external) visit(next.path);
    }
  };
  for (const entry of entries) visit(entry);
  return [...seen];
}

const onceRun = () => evaluated(['src/cli/cli.ts', 'src/cli/commands/once.ts']);

it('a --once run evaluates no yaml, no HTTP/2 client, no Milo parser and no locale but English', () => {
  const modules = onceRun();
  expect(modules).toContain('src/service/http.ts');
  expect(modules.filter((path) => path.includes('node_modules/yaml/'))).toEqual([]);
  expect(modules.filter((path) => /node_modules\/.*(client-h2|milo)/i.test(path))).toEqual([]);
  // zod's index of locales, as the bundle writes it (english-zod, cli-bundle.mjs), and English.
  const locales = modules.filter((path) => path.includes('zod/v4/locales/'));
  expect(locales.map((path) => path.replace(/^(\w+-?\w*:)?.*\//, '$1'))).toEqual([
    'english-zod:index.js',
    'en.js',
  ]);
});

it('the script holds no HTTP/2 client, Milo parser or other locale at all', () => {
  expect(text).toContain('undici');
  expect(text).not.toContain('node:http2');
  expect(text).not.toContain('UNDICI_USE_MILO');
  expect(text).not.toContain('Nieprawidłowe'); // zod's Polish messages
});

it('a --once run takes the built-in modules it imports by name, not through the CommonJS interop', () => {
  const modules = onceRun();
  expect(modules.filter((path) => path.startsWith('builtin:'))).toEqual([]);
  expect(modules).toContain('builtin-names:node:util#parseArgs');
});

it('the script runs in strict mode, as the ES modules it is built from', async () => {
  // A line before the script's "use strict" (a banner) makes it an expression, not a directive: the
  // whole CLI then ran in sloppy mode (a write to a frozen object, its settings, was dropped silently).
  // Where the package puts it: the script reads the package's package.json, two directories up.
  const temp = await mkdtemp(join(tmpdir(), 'cli-script-'));
  await mkdir(join(temp, 'dist/cli'), { recursive: true });
  await copyFile(join(root, 'package.json'), join(temp, 'package.json'));
  const file = join(temp, 'dist/cli/cli.cjs');
  await writeFile(file, text);
  const { restoreDefaults } = loadScript(file, 'strict-mode-test')
    .exports as typeof import('../../src/cli/cli.js');
  // A sloppy function has a `caller`; reading it from a strict one throws.
  expect(() => Reflect.get(restoreDefaults, 'caller')).toThrow(TypeError);
});

it('the script never asks Node for the stack of a pino() call, and no pino logger has a transport', async () => {
  // pino finds its callers (util.getCallSites) only to resolve a transport's relative path; placing
  // the frames made V8 find the line ends of the whole script at every start. The bundle leaves that
  // out (without-pino-caller, cli-bundle.mjs), which holds while the CLI gives pino streams only.
  expect(text).not.toContain('getCallSites');
  const makers: string[] = [];
  for (const file of await readdir(join(root, 'src'), { recursive: true })) {
    if (!file.endsWith('.ts')) continue;
    const source = await readFile(join(root, 'src', file), 'utf8');
    if (/^import pino\b/m.test(source)) makers.push(file);
  }
  expect(makers).toEqual([join('cli', 'logger.ts')]);
  expect(await readFile(join(root, 'src/cli/logger.ts'), 'utf8')).not.toMatch(/transport/);
});
