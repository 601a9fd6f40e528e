// Bundles bench/startup-floor/ exactly as the CLI is bundled (scripts/cli-bundle.mjs: the same undici
// subset, zod in English, built-in modules required) into the run's directory, and returns the command
// that runs it with the CLI's own Node options.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { CLI_BUNDLE } from '../../scripts/cli-bundle.mjs';
import { shebangFlags } from './processes.mjs';

export async function buildStartupFloor(dir) {
  const outdir = join(dir, 'startup-floor');
  mkdirSync(outdir, { recursive: true });
  // Its chunks are ES modules; the directory is outside the project, whose package.json says so.
  writeFileSync(join(outdir, 'package.json'), '{"type":"module"}\n');
  await build({
    ...CLI_BUNDLE,
    sourcemap: false,
    absWorkingDir: fileURLToPath(new URL('../../', import.meta.url)),
    entryPoints: [fileURLToPath(new URL('../startup-floor/main.mjs', import.meta.url))],
    outdir,
  });
  return (baseUrl) => [...shebangFlags(), join(outdir, 'main.js'), baseUrl];
}
