// A large manifest with a problem is read by `yaml` a piece of the `websites:` list at a time, so that
// its syntax tree is never whole in memory. What comes out must be what reading it whole gives: the
// same data, every node at the same offset, the same lines; and where it could differ, it is not used.

import { describe, expect, it } from 'vitest';
import * as lib from 'yaml';
import { parseManifest } from '../../src/manifest/index.js';
import { interpolateDocument, type Substitution } from '../../src/manifest/interpolate.js';
import { documentTree, formatPath, Locator, type Path } from '../../src/manifest/locate.js';
import { passwordSpans } from '../../src/manifest/password-syntax.js';
import { readPiecewise } from '../../src/manifest/read-pieces.js';
import { parseWithPositions } from '../../src/manifest/yaml-lib.js';
import { compareText } from '../../src/model/index.js';

/** Every node's path in the tree, keys excluded. */
function paths(node: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (lib.isMap(node)) {
    for (const pair of node.items)
      paths(pair.value, [...path, lib.isScalar(pair.key) ? String(pair.key.value) : '?'], out);
  } else if (lib.isSeq(node)) {
    for (const [i, item] of node.items.entries()) paths(item, [...path, i], out);
  }
  return out;
}

/** Where every node, every key and every line is, by a Locator. */
function positions(locator: Locator, tree: Path[], lines: number[]) {
  return {
    nodes: tree.map((path) => locator.locate(path)),
    keys: tree.map((path) => locator.toProblem({ severity: 'error', path, message: '', onKey: true })),
    lines: lines.map((offset) => locator.at(offset)),
  };
}

/** `count` entries of a few shapes: literal blocks, flow lists over lines, comments, quoted values. */
function manifest(count: number, extra = ''): string {
  const entries = Array.from({ length: count }, (_, i) =>
    [
      `  - domain: site${i}.example.com # entry ${i}`,
      i % 3 === 0 ? '    exclude_ips: |\n      203.0.113.1\n\n      203.0.113.2\n' : '    email: true',
      i % 4 === 0 ? '    exclude_params: [utm_source,\n      "fbclid"]' : "    privacy: 'public'",
      i % 5 === 0 ? '# a comment at the start of a line\n' : '',
    ].join('\n'),
  );
  return `version: 1\ndefaults:\n  privacy: private\nwebsites:\n${entries.join('\n')}\n${extra}`;
}

describe('reading the websites list in pieces', () => {
  it.each([
    ['a long list', manifest(3000)],
    ['a key after the list', manifest(2000, 'prune: false\n')],
    ['a list at the root column', manifest(1500).replace(/\n {2}(?!privacy)/g, '\n')],
    ['CRLF line ends', manifest(1500).replaceAll('\n', '\r\n')],
    [
      'keep chomping at the end',
      `${manifest(1500)}  - domain: last.example.com\n    ignore_fields: |+\n      email\n\n\n`,
    ],
  ])('gives the data, positions and lines of the whole text: %s', (_name, text) => {
    const pieces = readPiecewise(text, 'websites.yaml', {});
    const whole = parseWithPositions(text);
    const locator = new Locator(documentTree(whole.doc), whole.lineCounter, text, 'websites.yaml');
    const tree = paths(whole.doc.contents);
    expect(pieces).toBeDefined();
    expect(pieces?.data).toEqual(whole.doc.toJS());
    const lines = whole.lineCounter.lineStarts;
    expect(pieces && positions(pieces.locator, tree, lines)).toEqual(positions(locator, tree, lines));
    expect(pieces?.spans).toHaveLength(0);
  });

  it.each([
    ['an anchor and an alias', `${manifest(100)}  - &x domain: a.example.com\n  - domain: *x\n`],
    ['a syntax error in an entry', `${manifest(100)}  - domain: "unterminated\n`],
    ['a list indented unevenly', `${manifest(100)} - domain: b.example.com\n`],
    ['a second document', `${manifest(100)}---\nversion: 1\n`],
  ])('is not used where the pieces could read otherwise: %s', (_name, text) => {
    expect(readPiecewise(text, 'websites.yaml', {})).toBeUndefined();
  });

  it('finds the same unresolved references, substitutions and passwords as the whole reading', () => {
    const entry = (i: number) =>
      i % 3 === 0
        ? `  - domain: s${i}.example.com\n    privacy: password\n    password: \${PASS_${i % 2}}\n`
        : `  - domain: s${i}.example.com\n    email: \${EMAIL:-true}\n`;
    const text = `version: 1\nwebsites:\n${Array.from({ length: 900 }, (_, i) => entry(i)).join('')}prune: \${PRUNE}\n`;
    const env = { PASS_0: 'secret-zero' };
    const pieces = readPiecewise(text, 'websites.yaml', env);
    const whole = parseWithPositions(text);
    const substituted: Substitution[] = [];
    const failures = interpolateDocument(whole.doc, env, substituted);
    const byPath = (a: { path: Path }, b: { path: Path }) =>
      compareText(formatPath(a.path), formatPath(b.path));
    expect(pieces?.failures.sort(byPath)).toEqual(failures.sort(byPath));
    expect(pieces?.substituted).toHaveLength(substituted.length);
    const byStart = (a: { start: number }, b: { start: number }) => a.start - b.start;
    expect(pieces?.spans.sort(byStart)).toEqual(passwordSpans(whole.doc, text).sort(byStart));
  });

  it('locates the one bad value of a 10,000-website manifest at its line', () => {
    const lines = ['version: 1', 'websites:'];
    for (let i = 0; i < 10_000; i++) {
      lines.push(`  - domain: site${i}.example.com`);
      if (i % 7 === 0) lines.push('    exclude_ips: ["203.0.113.1", "2001:db8::1"]');
      if (i === 5000) lines.push('    colour: blue', '    email: maybe');
    }
    const { problems } = parseManifest(`${lines.join('\n')}\n`, { file: 'big.yaml', env: {} });
    const at = lines.indexOf('    colour: blue') + 1;
    expect(problems.map(({ line, column, field }) => ({ line, column, field }))).toEqual([
      { line: at, column: 5, field: 'websites[5000].colour' },
      { line: at + 1, column: 12, field: 'websites[5000].email' },
    ]);
    expect(problems[1]?.message).toMatch(/true or false/);
  });
});
