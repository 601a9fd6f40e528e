// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Names the service stores as written (a path, another scheme, a needed trailing dot, a `?`), records
// stored with a scheme before the service's rule, and names holding manifest syntax: every one can be
// protected, managed and exported, and none is deleted because the tool reads a name another way.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-literal-'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

const LITERAL = ['example.com/index.html', 'ftp://files.example.com', 'x.1.', 'q?x.example.com'];
const store = (...domains: string[]) => {
  for (const domain of domains) simulator.insertStored({ domain, privacy: 1, email: false });
};
const manifest = (text: string) => writeFile(join(dir, 'websites.yaml'), text);
const deletes = () => simulator.requests.filter((r) => r.method === 'DELETE');

describe('an ignore pattern protects a record stored under a literal name', () => {
  it('each name written as a pattern keeps its record, and no pattern is called unused', async () => {
    store(...LITERAL, 'keep.example.com');
    await manifest(
      `version: 1\nprune: true\nignore: ${JSON.stringify(LITERAL)}\nwebsites:\n  - domain: keep.example.com\n`,
    );
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(0);
    expect(deletes()).toEqual([]);
    expect(run.stdout).toContain(
      'ignored by pattern: example.com/index.html, ftp://files.example.com, q?x.example.com, x.1.',
    );
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/matches no website/);
  });

  it('"*" matches across "/", even with --force', async () => {
    store(...LITERAL, 'keep.example.com');
    await manifest('version: 1\nprune: true\nignore: ["*", "*.example.com"]\nwebsites: []\n');
    const run = await runCli(['--once', '--force'], env);
    expect(run.code).toBe(0);
    expect(deletes()).toEqual([]);
    expect(simulator.listWebsites()).toHaveLength(5);
  });
});

describe('a record stored with a scheme', () => {
  beforeEach(() => store('https://www.y.example.com', 'http://z.example.com', 'keep.example.com'));

  it('is exported as an entry, and the export plans to no change with prune on', async () => {
    const exported = await runCli(['export', '--out', join(dir, 'websites.yaml')], env);
    expect(exported.code).toBe(0);
    const text = await readFile(join(dir, 'websites.yaml'), 'utf8');
    expect(text).toContain('  - domain: https://www.y.example.com\n');
    expect(text).toContain('  - domain: http://z.example.com\n');
    expect(text).not.toMatch(/same website/);
    expect((await runCli(['validate'], env)).code).toBe(0);
    await runCli(['--once'], env); // write-only fields (exclude_params) are sent once
    const plan = await runCli(['--once', '--dry-run', '--prune', '--detailed-exitcode'], env);
    expect(plan.stdout).toContain('No changes. 3 website(s) match the manifest.');
    expect(plan.code).toBe(0);
    expect(deletes()).toEqual([]);
  });

  it('is managed when listed as stored or as the service stores it today, never created again', async () => {
    await manifest(
      'version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n  - domain: https://www.y.example.com\n    privacy: public\n  - domain: z.example.com\n    privacy: public\n',
    );
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(0);
    expect(simulator.requests.filter((r) => r.method === 'POST' || r.method === 'DELETE')).toEqual([]);
    expect(simulator.listWebsites().map((w) => [w.domain, w.privacy])).toEqual([
      ['https://www.y.example.com', 0],
      ['http://z.example.com', 0],
      ['keep.example.com', 1],
    ]);
  });
});

describe('export writes every name so that it reads back as itself', () => {
  it('a name holding ${…}, $$, quotes, "#", ": " or a leading "- " plans to no change', async () => {
    store(
      '${X}.example.com',
      'a$${b}.example.com',
      'a\'b".example.com',
      'a #b.example.com',
      'a: b.example.com',
    );
    store('- dash.example.com', 'ü$.example.com');
    const out = join(dir, 'websites.yaml');
    expect((await runCli(['export', '--out', out], env)).code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('- domain: $${x}.example.com\n');
    const withX = { ...env, X: 'foo', x: 'foo', b: 'bar' };
    const validate = await runCli(['validate'], withX);
    expect(validate.stderr).not.toMatch(/error/);
    await runCli(['--once'], withX);
    const plan = await runCli(['--once', '--dry-run', '--prune', '--detailed-exitcode'], withX);
    expect(plan.stdout).toContain('No changes. 7 website(s) match the manifest.');
    expect(plan.code).toBe(0);
    expect(deletes()).toEqual([]);
    expect(simulator.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('restore of a record stored with a scheme', () => {
  it('finds its backup under the name the service stores today, and writes it as stored', async () => {
    store('https://www.y.example.com', 'keep.example.com');
    await manifest('version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n');
    expect((await runCli(['--once'], { ...env, WEBSITES_SYNC_LOG_LEVEL: 'warn' })).code).toBe(0);
    expect(deletes()).toHaveLength(1);
    for (const asked of ['y.example.com', 'https://www.y.example.com', 'www.y.example.com']) {
      const run = await runCli(['restore', asked], env);
      expect(run.code, `${asked}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('  - domain: https://www.y.example.com\n');
    }
  });
});
