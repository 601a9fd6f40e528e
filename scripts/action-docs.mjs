#!/usr/bin/env node
// Writes the inputs and outputs tables of docs/guides/github-action.md from action.yml (between the
// `<!-- action-tables -->` markers), so the guide cannot drift from the Action. `--check` exits 1 when
// the committed guide is stale (a test runs it: test/action/docs.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const START = '<!-- action-tables:start (generated from action.yml by scripts/action-docs.mjs) -->';
const END = '<!-- action-tables:end -->';

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ').trim();

/** The two tables, in action.yml's order. */
export function actionTables(yamlText) {
  const action = parse(yamlText);
  const inputs = Object.entries(action.inputs).map(([name, spec]) => {
    const shown = spec.default === undefined ? '' : `\`${cell(spec.default)}\``;
    return `| \`${name}\` | ${spec.required ? 'yes' : ''} | ${shown} | ${cell(spec.description)} |`;
  });
  const outputs = Object.entries(action.outputs).map(
    ([name, spec]) => `| \`${name}\` | ${cell(spec.description)} |`,
  );
  return [
    '#### Inputs',
    '',
    '| Input | Required | Default | Description |',
    '| --- | --- | --- | --- |',
    ...inputs,
    '',
    '#### Outputs',
    '',
    '| Output | Description |',
    '| --- | --- |',
    ...outputs,
  ].join('\n');
}

/** The guide with its tables as action.yml says. */
export function withTables(guide, yamlText) {
  const start = guide.indexOf(START);
  const end = guide.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/guides/github-action.md: no ${START} … ${END} block`);
  return `${guide.slice(0, start + START.length)}\n\n${actionTables(yamlText)}\n\n${guide.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const guidePath = fileURLToPath(new URL('../docs/guides/github-action.md', import.meta.url));
  const yamlText = readFileSync(fileURLToPath(new URL('../action.yml', import.meta.url)), 'utf8');
  const guide = readFileSync(guidePath, 'utf8');
  const next = withTables(guide, yamlText);
  if (process.argv.includes('--check')) {
    if (next !== guide) {
      console.error(
        `${guidePath}: the inputs and outputs tables are stale; run: node scripts/action-docs.mjs`,
      );
      process.exit(1);
    }
  } else if (next !== guide) {
    writeFileSync(guidePath, next);
    console.log(`wrote ${guidePath}`);
  }
}
