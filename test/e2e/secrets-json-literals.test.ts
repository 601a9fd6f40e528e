// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonOutputSchema } from '../../src/cli/json-output-schema.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { HAS_SCRIPT, runOnTerminal } from '../helpers/terminal.js';

// A password that is also a word of JSON (`true`, `null`, a number) is masked in a JSON document's
// strings only: masking the document's own literals (`"dry_run": true`) would leave no JSON at all.

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

const site = (domain: string, variable: string) =>
  `  - domain: ${domain}\n    privacy: password\n    password: \${${variable}}\n`;

/**
 * An account with a website to delete that had 1,234 visitors, and a manifest with a password (and a
 * second one).
 */
async function start(password: string, other?: string) {
  simulator = await startSimulator({
    websites: [{ domain: 'keep.example.com' }, { domain: 'old.example.com', visitors_last_30d: 1234 }],
  });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-json-literals-'));
  const websites =
    site('shop.example.com', 'SHOP_PASSWORD') + (other ? site('blog.example.com', 'BLOG_PASSWORD') : '');
  await writeFile(
    join(dir, 'websites.yaml'),
    `version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n${websites}`,
  );
  const env = { ...toolEnv(simulator, dir), SHOP_PASSWORD: password, BLOG_PASSWORD: other };
  return { dir, env };
}

/** Every string of a JSON value, keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
  return [];
}

/** No string holds the password (one shorter than 4 characters: as a word of its own, as it is masked). */
function expectNotInStrings(value: unknown, password: string): void {
  const escaped = password.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(
    password.length < 4 ? `(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])` : escaped,
    'iu',
  );
  expect(stringsOf(value).filter((text) => pattern.test(text))).toEqual([]);
}

describe('a password that is a word of JSON', () => {
  it.each(['true', 'null', '1234', '-1', '1e3'])(
    '%s: the JSON plan and the JSON log lines parse, and hold it in no string',
    async (password) => {
      const { env } = await start(password);
      const run = await runCli(
        ['--once', '--dry-run', '--output', 'json', '--log-format', 'json', '--log-level', 'debug'],
        env,
      );
      expect(run.code).toBe(3); // the traffic guard refuses the delete of old.example.com
      const plan = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(jsonOutputSchema.safeParse(plan).error).toBeUndefined();
      expect(plan.changes).toMatchObject([
        { action: 'create', id: null, fields: { password: { to_sensitive: true } } },
      ]);
      expect(plan.traffic_refused).toEqual([
        { id: 2, domain: 'old.example.com', visitors: 1234, window_days: 30 },
      ]);
      expectNotInStrings(plan, password);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('{'));
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) expectNotInStrings(JSON.parse(line), password);
    },
  );
});

describe('a password with a quote and a backslash, beside one that is a word of JSON', () => {
  it('is masked in the strings of the JSON plan and the log lines, which still parse', async () => {
    const password = 'abc"def\\';
    const { env } = await start(password, 'true');
    simulator?.setFaults({ script: ['none', 'echo-422', 'echo-422'] });
    const run = await runCli(['--once', '--output', 'json', '--log-format', 'json'], env);
    const plan = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(jsonOutputSchema.safeParse(plan).error).toBeUndefined();
    expect(JSON.stringify(plan)).toContain('[redacted]');
    expectNotInStrings(plan, password);
    expectNotInStrings(plan, 'abc"def');
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('{'));
    for (const line of lines) expectNotInStrings(JSON.parse(line), 'abc"def');
    expect(run.stdout + run.stderr).not.toContain('abc\\"def');
  });
});

describe('a service that answers the password as a number', () => {
  it('is an unusable answer whose message masks it, in the JSON log lines too', async () => {
    const { env } = await start('1234');
    const listing = {
      data: [
        { id: 1, domain: 'keep.example.com', privacy: 1, email: false, exclude_bots: true, password: 1234 },
      ],
      meta: { current_page: 1, last_page: 1, total: 1 },
    };
    simulator?.setFaults({ script: ['given-body'], givenBody: listing });
    const run = await runCli(['--once', '--output', 'json', '--log-format', 'json'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('password must be a boolean, got [redacted]');
    const lines = run.stderr.split('\n').filter(Boolean);
    for (const line of lines.filter((l) => l.startsWith('{'))) expectNotInStrings(JSON.parse(line), '1234');
    for (const line of lines.filter((l) => !l.startsWith('{'))) expect(line).not.toContain('1234');
    expect(run.stdout).not.toContain('1234');
  });
});

describe.skipIf(!HAS_SCRIPT)('on a terminal, with a password that is a word of JSON', () => {
  it('JSON log lines (written around the progress line) and the JSON plan still parse', async () => {
    // `false`: the line "plan computed" holds `"saved": false`.
    const { env } = await start('false');
    const run = await runOnTerminal(['--once', '--dry-run', '--output', 'json', '--log-format', 'json'], env);
    const lines = run.raw.split(/\r?\n/);
    const logLines = lines.filter((line) => line.startsWith('{"level"'));
    expect(logLines.length, run.raw).toBeGreaterThan(1);
    for (const line of logLines) expectNotInStrings(JSON.parse(line), 'false');
    const plan = lines.slice(lines.indexOf('{'), lines.indexOf('}') + 1).join('\n');
    expect(jsonOutputSchema.safeParse(JSON.parse(plan)).error).toBeUndefined();
  });
});
