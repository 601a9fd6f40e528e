// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifest, parseManifest } from '../../src/manifest/index.js';

describe('loadManifest', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'websites-sync-manifest-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file and interpolates from the given environment', async () => {
    const file = join(dir, 'websites.yaml');
    await writeFile(file, '\uFEFFversion: 1\r\nwebsites:\r\n  - domain: ${SITE}\r\n');
    const result = await loadManifest(file, { SITE: 'example.com' });
    expect(result.problems).toEqual([]);
    expect(result.desired?.file).toBe(file);
    expect(result.desired?.websites.map((w) => [w.domain, w.location.line])).toEqual([['example.com', 3]]);
  });

  it.each([
    ['a missing file', 'missing.yaml', 'cannot read the manifest: the file does not exist'],
    ['a directory', '.', 'cannot read the manifest: it is a directory, not a file'],
  ])('reports %s as a problem, not a throw', async (_name, name, message) => {
    const file = join(dir, name);
    expect(await loadManifest(file, {})).toEqual({
      problems: [{ severity: 'error', file, line: 1, column: 1, field: '', message }],
    });
  });
});

describe('bytes that are not a manifest a parser can take', () => {
  it('reports invalid UTF-8 (a Latin-1 password) at its line, instead of sending replacement characters', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ws-utf8-'));
    const file = join(dir, 'websites.yaml');
    const latin1 = Buffer.from(
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: caf\xe9\n',
      'latin1',
    );
    await writeFile(file, latin1);
    const { desired, problems } = await loadManifest(file, {});
    expect(desired).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 5,
        column: 18,
        message: expect.stringMatching(/not valid UTF-8: byte 0xe9/),
      }),
    ]);
  });

  it.each([
    [
      "UTF-16 with its byte order mark (Windows PowerShell 5's `>`)",
      Buffer.from('\ufeffversion: 1\n', 'utf16le'),
      /UTF-16/,
    ],
    ['Latin-1 from its first byte', Buffer.from('\xe9t\xe9: 1\nwebsites: []\n', 'latin1'), /byte 0xe9/],
  ])('reports a file that is not UTF-8 from its first byte at 1:1: %s', async (_name, bytes, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'ws-utf8-'));
    const file = join(dir, 'websites.yaml');
    await writeFile(file, bytes);
    const { problems } = await loadManifest(file, {});
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 1,
        column: 1,
        message: expect.stringMatching(message),
      }),
    ]);
  });

  it('reports a manifest nested thousands of levels deep at its position, not a stack overflow', () => {
    const text = `version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_ips: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 4,
        column: 82,
        message: expect.stringMatching(/nested too deeply/),
      }),
    ]);
  });

  // Issue 10 §2: every reader is guarded (the fast reader recursed on block lists before the check
  // ran), and a quote that YAML reads as plain text cannot hide brackets from the check.
  const N = 5000;
  const lines = (make: (i: number) => string) => Array.from({ length: N }, (_, i) => make(i)).join('');
  const nested = '['.repeat(N) + ']'.repeat(N);
  it.each([
    ['a block list', `websites:\n${lines((i) => `${' '.repeat(i)}- \n`)}`, 258, 257],
    ['a block list of mappings', `websites:\n${lines((i) => `${' '.repeat(2 * i)}- domain:\n`)}`, 131, 257],
    ['a block map', `x:\n${lines((i) => `${' '.repeat(i + 1)}a:\n`)}`, 259, 257],
    ['compact block lists on one line', `websites:\n${'- '.repeat(N)}a\n`, 3, 257],
    ['explicit keys on one line', `x:\n${'? '.repeat(N)}a\n`, 3, 257],
    ['tabs between dashes', `websites:\n${'-\t'.repeat(N)}a\n`, 3, 257],
    ['flow lists', `websites: ${nested}\n`, 2, 75],
    ['flow maps', `websites: ${'{a: '.repeat(N)}${'}'.repeat(N)}\n`, 2, 267],
    ['flow lists over many lines', `websites:\n${lines(() => '[\n')}${lines(() => ']\n')}`, 67, 1],
    ['flow lists after an escaped quote', `websites: ["a\\"b", ${nested}]\n`, 2, 83],
    ['flow lists after a quote inside a plain scalar', `websites: [a "b, ${nested}]\n`, 2, 81],
    ["flow lists after an apostrophe (it's)", `websites: [it's, ${nested}]\n`, 2, 81],
    [
      'block lists holding flow lists',
      `websites:\n${lines((i) => (i < 100 ? `${' '.repeat(i)}- [\n` : ''))}`,
      67,
      67,
    ],
  ])('reports %s thousands of levels deep at its position, with the limit', (_name, body, line, column) => {
    const text = `version: 1\n${body}`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      {
        severity: 'error',
        file: 'websites.yaml',
        line,
        column,
        field: '',
        message:
          'the manifest is nested too deeply here (more than 64 levels of brackets or 256 columns of indentation); a manifest needs four levels',
      },
    ]);
  });

  it('says "nested too deeply" where the check cannot see the nesting and yaml runs out of stack', () => {
    // A quote opening a continuation line of a plain scalar is plain text to YAML: a safety net.
    const text = `version: 1\nwebsites: [ a\n  "b, ${'['.repeat(20_000)}${']'.repeat(20_000)} ]\n`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        line: 3,
        message: expect.stringMatching(/^the manifest is nested too deeply/),
      }),
    ]);
  });

  it('counts no bracket inside a quoted value: a manifest of bracket-heavy passwords is valid', () => {
    const entry = (i: number) =>
      `  - domain: s${i}.example.com\n    privacy: password\n    password: ${i % 2 ? `'[[{''[['` : '"[[\\"{[["'}\n`;
    const text = `version: 1\nwebsites:\n${Array.from({ length: 100 }, (_, i) => entry(i)).join('')}`;
    const { desired, problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([]);
    expect(desired?.websites.map((w) => w.password).slice(0, 2)).toEqual(['[["{[[', "[[{'[["]);
  });

  it.each([
    ['a plain value', (b: string) => `    ignore_fields: email${b}\n`],
    ['a quoted value', (b: string) => `    ignore_fields: "email${b}"\n`],
    [
      'a literal block',
      (b: string) => `    exclude_params: |\n      utm_source\n      x${b}\n      fbclid${b}\n`,
    ],
    ['a folded block', (b: string) => `    exclude_params: >-\n      utm${b}\n\n      ${b}x\n`],
    [
      'a double-quoted value that spans lines',
      (b: string) => `    password: "s3cret\n      ${b} more\n      end"\n    privacy: password\n`,
    ],
    [
      'a single-quoted value that spans lines',
      (b: string) => `    password: 's3cret\n      ${b} it''s\n      end'\n    privacy: password\n`,
    ],
  ])('counts no bracket inside %s: 65 unbalanced "[" are not nesting', (_name, value) => {
    const entries = Array.from({ length: 70 }, (_, i) => `  - domain: s${i}.example.com\n${value('[')}`);
    const text = `version: 1\nwebsites:\n${entries.join('')}`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems.filter((p) => /nested too deeply/.test(p.message))).toEqual([]);
  });

  it.each([
    ['double', '"'],
    ['single', "'"],
  ])('still refuses flow lists nested too deeply after a %s-quoted value that spans lines', (_name, q) => {
    const deep = '['.repeat(100_000);
    const text = `version: 1\nwebsites:\n  - domain: ${q}a.com\n      x${q} ${deep}\n`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    // One error where the nesting passes the limit; not one error per bracket.
    expect(problems).toEqual([
      expect.objectContaining({ line: 4, column: 74, message: expect.stringMatching(/nested too deeply/) }),
    ]);
  });

  it.each([
    ['a tag', 'domain: !!str "a.com" '],
    ['an anchor', "domain: &site 'a.com' "],
    ['an anchor and a tag', 'domain: &site !!str "a.com" '],
  ])('still refuses flow lists nested too deeply after a quoted value with %s', (_name, value) => {
    const text = `version: 1\nwebsites:\n  - ${value}${'['.repeat(100_000)}\n`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        line: 3,
        column: 4 + value.length + 65,
        message: expect.stringMatching(/nested too deeply/),
      }),
    ]);
  });

  it('still refuses flow lists nested too deeply after a block scalar and a plain value', () => {
    const text = `version: 1\nnote: |\n  [[[\nx: a[b\nwebsites: ${'['.repeat(65)}${']'.repeat(65)}\n`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({ line: 5, column: 75, message: expect.stringMatching(/nested too deeply/) }),
    ]);
  });

  it('reports block nesting thousands of levels deep too', () => {
    const deep = Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    const { problems } = parseManifest(`version: 1\n${deep}\n`, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({ line: 259, message: expect.stringMatching(/nested too deeply/) }),
    ]);
  });
});
