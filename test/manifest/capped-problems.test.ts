import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/index.js';
import { firstIssues } from '../../src/manifest/issues.js';
import { manifestSchema } from '../../src/manifest/schema.js';
import { parseWithPositions } from '../../src/manifest/yaml-lib.js';
import { MAX_LISTED_PROBLEMS } from '../../src/model/index.js';

// A typo repeated on every line of a large manifest: listed in full, it flooded CI logs and held
// 100,000 problems (and the YAML library's 100,000 errors) in memory.

const N = 100_000;
const head = 'version: 1\nwebsites:\n';
const site = (i: number) => `  - domain: s${i}.example.com\n`;

describe('a manifest with a problem repeated many times', () => {
  it.each([
    ['a stray "]" on every line', `${head}${']\n'.repeat(N)}`],
    ['a stray "]" repeated on one line', `${head}${']'.repeat(N)}\n`],
    ['valid entries, then a stray "]" on every line', `${head}${site(1)}${site(2)}${']\n'.repeat(N)}`],
  ])('%s: the first errors are listed, the rest counted', (_name, text) => {
    const result = parseManifest(text, { file: 'w.yaml', env: {} });
    expect(result.desired).toBeUndefined();
    expect(result.problems).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(result.problems.every((problem) => problem.severity === 'error')).toBe(true);
    expect(result.unlisted).toEqual({ errors: N - MAX_LISTED_PROBLEMS, warnings: 0 });
    // In file order: the first ones are the first in the file.
    expect(result.problems[0]?.line).toBe(text.startsWith(`${head}]`) ? 3 : 5);
  });

  it("keeps only the first of the YAML library's errors while reading (the rest are counted)", () => {
    const { doc, unlisted } = parseWithPositions(`${head}${']\n'.repeat(N)}`);
    expect(doc.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(unlisted).toEqual({ errors: N - MAX_LISTED_PROBLEMS, warnings: 0 });
  });

  it('lists the first schema errors of many entries and counts the rest', () => {
    const entries = Array.from({ length: 300 }, (_, i) => `${site(i)}    privcy: 1\n`).join('');
    const result = parseManifest(`${head}${entries}`, { file: 'w.yaml', env: {} });
    expect(result.problems).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(result.problems[0]).toMatchObject({ line: 4, field: 'websites[0].privcy' });
    expect(result.unlisted).toEqual({ errors: 200, warnings: 0 });
  });

  it('lists every problem, with nothing unlisted, up to the limit', () => {
    const entries = Array.from({ length: 3 }, (_, i) => `${site(i)}    privcy: 1\n`).join('');
    const result = parseManifest(`${head}${entries}`, { file: 'w.yaml', env: {} });
    expect(result.problems).toHaveLength(3);
    expect(result.unlisted).toBeUndefined();
  });

  it('turns only the schema issues that can be listed into findings, and counts the others', () => {
    // Three issues in each of 300 entries: the 100th is entry 33's first; its other two are kept too.
    const bad = '    privacy: secret\n    email: maybe\n    exclude_bots: maybe\n';
    const text = `${head}${Array.from({ length: 300 }, (_, i) => `${site(i)}${bad}`).join('')}`;
    const websites = Array.from({ length: 300 }, (_, i) => ({
      domain: `s${i}.example.com`,
      privacy: 'secret',
      email: 'maybe',
      exclude_bots: 'maybe',
    }));
    const issues = manifestSchema.safeParse({ version: 1, websites }).error?.issues ?? [];
    expect(issues).toHaveLength(900);
    const first = firstIssues(issues);
    expect(first.issues).toHaveLength(102);
    expect(first.issues.at(-1)?.path).toEqual(['websites', 33, 'exclude_bots']);
    expect(first.rest).toBe(798);

    const result = parseManifest(text, { file: 'w.yaml', env: {} });
    expect(result.problems).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(result.problems.at(-1)?.field).toBe('websites[33].privacy');
    expect(result.unlisted).toEqual({ errors: 800, warnings: 0 });
  });
});
