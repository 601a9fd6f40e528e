#!/usr/bin/env node
// Writes the generated reference tables of docs/reference/ from the one place in the BUILT code that
// defines each of them: the options table (src/cli/options.ts), the exit statuses
// (src/reconcile/exit-status.ts), the metrics registry (src/daemon/metrics.ts), the manifest's schema
// (schema/websites.schema.json, itself generated from the validator) and the JSON output's schema
// (src/cli/json-output-schema.ts). Each table sits between `<!-- generated:NAME -->` and
// `<!-- end generated:NAME -->` in its page; the prose around it is written by hand.
// `--check` exits 1 when a committed page is stale (CI: .ci/run), naming the page and the table.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const read = (path) => readFile(new URL(path, root), 'utf8');

const { OPTION_TABLE } = await import('../dist/cli/options.js');
const { ENVIRONMENT_ONLY } = await import('../dist/cli/environment.js');
const { EXIT_STATUSES } = await import('../dist/reconcile/index.js');
const { DaemonMetrics } = await import('../dist/daemon/index.js');
const { jsonOutputSchema } = await import('../dist/cli/json-output-schema.js');
const { z } = await import('zod');

/** A Markdown table cell: pipes escaped, line breaks folded. */
const cell = (text) =>
  String(text ?? '')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');
const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
const code = (text) => `\`${text}\``;

/** `sync` is what a run (`--once`, the daemon) is called in the code. */
const commandsOf = (commands) => commands.map((c) => (c === 'sync' ? 'run' : c)).join(', ');

function optionsTable() {
  const rows = Object.entries(OPTION_TABLE).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.arg ? ` ${spec.arg}` : ''}`;
    const fallback = spec.type === 'boolean' ? 'off' : '—';
    const dflt = spec.default !== undefined ? code(spec.default) : (spec.defaultNote ?? fallback);
    return [code(flag), spec.env ? code(spec.env) : '—', dflt, commandsOf(spec.commands), spec.help];
  });
  for (const variable of ENVIRONMENT_ONLY)
    rows.push(['—', code(variable.env), '—', commandsOf(variable.commands), variable.help]);
  return table(['option', 'environment', 'default', 'commands', 'meaning'], rows);
}

function exitCodesTable() {
  return table(
    ['code', 'meaning'],
    EXIT_STATUSES.map((s) => [code(s.code), s.meaning]),
  );
}

async function metricsTable() {
  const metrics = new DaemonMetrics({ defaultMetrics: false });
  metrics.watchRate({ fraction: 1, limit: 0, used: () => 0 });
  const rows = [];
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    const labels = new Map();
    for (const { labels: pairs } of metric.values) {
      for (const [label, value] of Object.entries(pairs)) {
        if (label === 'le') continue;
        if (!labels.has(label)) labels.set(label, []);
        if (!labels.get(label).includes(String(value))) labels.get(label).push(String(value));
      }
    }
    const described = [...labels].map(([label, values]) => `${code(label)}: ${values.map(code).join(', ')}`);
    rows.push([code(metric.name), metric.type, described.join('; '), metric.help]);
  }
  return table(['metric', 'type', 'labels (every value exists at 0 from the first scrape)', 'meaning'], rows);
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own ${NAME} syntax, not a template.
const REFERENCE = '`${NAME}` (from the environment)';

/** The values a JSON Schema node allows, in words. */
function allowed(node, defs) {
  if (!node) return '';
  if (node.$ref === '#/$defs/reference') return REFERENCE;
  if (node.$ref) return allowed(defs[node.$ref.split('/').pop()], defs);
  if (node.const !== undefined) return code(JSON.stringify(node.const));
  if (node.enum) return node.enum.map((v) => code(JSON.stringify(v))).join(', ');
  if (node.anyOf) {
    const parts = node.anyOf.flatMap((n) => allowed(n, defs).split(' or ')).filter(Boolean);
    return [...new Set(parts)].join(' or ');
  }
  if (node.type === 'array') return `list of ${allowed(node.items, defs) || 'values'}`;
  if (node.type === 'object') return 'mapping';
  return node.type ?? '';
}

/** The object schema a property's `anyOf` holds (a website's settings, `defaults`), if any. */
function objectOf(node) {
  if (node?.type === 'object') return node;
  return node?.anyOf?.find((n) => n.type === 'object');
}

async function manifestTables() {
  const schema = JSON.parse(await read('schema/websites.schema.json'));
  const defs = schema.$defs ?? {};
  const required = new Set(schema.required ?? []);
  const top = table(
    ['key', 'values', 'meaning'],
    Object.entries(schema.properties).map(([key, node]) => [
      code(key) + (required.has(key) ? ' (required)' : ''),
      allowed(node, defs),
      node.description ?? '',
    ]),
  );
  const websites = schema.properties.websites;
  const website = objectOf(websites.items ?? websites.anyOf?.find((n) => n.type === 'array')?.items);
  const needed = new Set(website?.required ?? []);
  const entry = table(
    ['key', 'values', 'meaning'],
    Object.entries(website?.properties ?? {}).map(([key, node]) => [
      code(key) + (needed.has(key) ? ' (required)' : ''),
      allowed(node, defs),
      node.description ?? '',
    ]),
  );
  return { top, entry };
}

/** Every key of the JSON output, by its path (`changes[].fields.*.from`), with its type and meaning. */
function jsonPlanTable() {
  const schema = z.toJSONSchema(jsonOutputSchema, { io: 'output' });
  const rows = [];
  const typeOf = (node) => {
    if (node.anyOf) return [...new Set(node.anyOf.map(typeOf))].join(' or ');
    if (node.const !== undefined) return code(JSON.stringify(node.const));
    if (node.enum) return node.enum.map((v) => code(JSON.stringify(v))).join(', ');
    if (node.type === 'array')
      return node.items?.type === 'object' ? 'list of objects' : `list of ${typeOf(node.items ?? {})}`;
    if (node.type === 'object') return 'object';
    return Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any');
  };
  const walk = (node, path, optional) => {
    if (path) rows.push([code(path) + (optional ? ' (optional)' : ''), typeOf(node), node.description ?? '']);
    const object = node.type === 'array' ? node.items : node;
    const prefix = node.type === 'array' ? `${path}[]` : path;
    if (object?.type !== 'object') return;
    const props = object.properties ?? {};
    const needed = new Set(object.required ?? []);
    for (const [key, child] of Object.entries(props))
      walk(child, prefix ? `${prefix}.${key}` : key, !needed.has(key));
    if (object.additionalProperties && typeof object.additionalProperties === 'object') {
      walk(object.additionalProperties, `${prefix}.*`, false);
    }
  };
  walk(schema, '', false);
  return table(['key', 'type', 'meaning'], rows);
}

const manifest = await manifestTables();
const PAGES = {
  'docs/reference/options.md': { options: optionsTable() },
  'docs/reference/exit-codes.md': { 'exit-codes': exitCodesTable() },
  'docs/reference/metrics.md': { metrics: await metricsTable() },
  'docs/reference/manifest.md': { 'manifest-keys': manifest.top, 'website-keys': manifest.entry },
  'docs/reference/json-plan.md': { 'json-plan': jsonPlanTable() },
};

const check = process.argv.includes('--check');
let stale = 0;
for (const [page, tables] of Object.entries(PAGES)) {
  const before = await read(page);
  let after = before;
  for (const [name, body] of Object.entries(tables)) {
    const open = `<!-- generated:${name} (scripts/generate-docs.mjs; do not edit by hand) -->`;
    const close = `<!-- end generated:${name} -->`;
    const start = after.indexOf(open);
    const end = after.indexOf(close);
    if (start < 0 || end < start)
      throw new Error(`${page}: no region ${name}: add the lines\n${open}\n${close}`);
    after = `${after.slice(0, start + open.length)}\n${body}\n${after.slice(end)}`;
  }
  if (after === before) continue;
  if (check) {
    console.error(`${page} is out of date; run: npm run build && npm run docs`);
    stale++;
  } else {
    await writeFile(new URL(page, root), after);
    console.log(`wrote ${fileURLToPath(new URL(page, root))}`);
  }
}
if (check && stale > 0) process.exit(1);
if (check) console.log('docs/reference is up to date');
