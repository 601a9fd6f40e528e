// Bundles bench/startup-floor/ exactly as the CLI is bundled (scripts/cli-bundle.mjs: the same undici
// subset, zod in English, built-in modules required; its work as one script that the loader runs from
// a code cache made after a run) into the run's directory, and returns the command that runs it with
// the CLI's own Node options.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { CLI_SCRIPT, cliLoader, identifiedScript } from '../../scripts/cli-bundle.mjs';
import { shebangFlags } from './processes.mjs';

export async function buildStartupFloor(dir) {
  const outdir = join(dir, 'startup-floor');
  mkdirSync(outdir, { recursive: true });
  // The loader is an ES module; the directory is outside the project, whose package.json says so.
  writeFileSync(join(outdir, 'package.json'), '{"type":"module"}\n');
  const absWorkingDir = fileURLToPath(new URL('../../', import.meta.url));
  const source = (name) => fileURLToPath(new URL(`../startup-floor/${name}`, import.meta.url));
  const script = await build({
    ...CLI_SCRIPT,
    sourcemap: false,
    absWorkingDir,
    entryPoints: [source('work.mjs')],
    outfile: join(outdir, 'work.cjs'),
    write: false,
  });
  const [work] = script.outputFiles;
  const built = identifiedScript(work.text);
  writeFileSync(work.path, built.text);
  await build({
    ...cliLoader(built.id),
    absWorkingDir,
    entryPoints: [source('main.mjs')],
    outfile: join(outdir, 'main.js'),
  });
  return (baseUrl) => [...shebangFlags(), join(outdir, 'main.js'), baseUrl];
}
