#!/usr/bin/env node
// Writes schema/websites.schema.json from the zod schema of the BUILT manifest stage (the text
// `websites-sync schema` prints), so the shipped editor schema can never drift from the validator.
// `--check` exits 1 when the committed file is stale (CI: .ci/run).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const target = fileURLToPath(new URL('../schema/websites.schema.json', import.meta.url));
const { manifestJsonSchemaText } = await import('../dist/manifest/index.js');
const text = manifestJsonSchemaText();

if (process.argv.includes('--check')) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== text) {
    console.error(`${target} is out of date; run: npm run build && npm run schema`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
