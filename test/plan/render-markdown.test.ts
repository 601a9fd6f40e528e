import { describe, expect, it } from 'vitest';
import { codeSpan, computePlan, escapeMarkdown, type Plan, renderMarkdown } from '../../src/plan/index.js';
import { emptyState, recordApplied } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

const PASSWORD = 'hunter2-markdown-secret';

/** One of each action, two of them risky in one change, one unchanged website, one unreadable field. */
function mixedPlan(): Plan {
  const state = emptyState('https://stats.example.com');
  // exclude_params is write-only: known as applied, so it does not show up as a change.
  for (const [id, domain] of [
    [1, 'a.example.com'],
    [2, 'b.example.com'],
    [3, 'same.example.com'],
  ] as const) {
    recordApplied(state, { id, domain }, 'exclude_params', []);
  }
  const plan = computePlan({
    desired: desiredState([
      desiredSite('a.example.com', { privacy: 0, exclude_bots: false }),
      desiredSite('b.example.com', { email: true }),
      desiredSite('same.example.com'),
      desiredSite('new.example.com', { privacy: 2, password: PASSWORD, exclude_ips: ['203.0.113.7'] }),
    ]),
    current: [
      remoteSite(1, 'a.example.com'),
      remoteSite(2, 'b.example.com'),
      remoteSite(3, 'same.example.com'),
      remoteSite(9, 'old.example.com'),
    ],
    state,
    prune: true,
  });
  plan.warnings.push('websites.yaml:3:5: warning: websites[0].domain: "www." removed');
  return plan;
}

/** The table rows (header and separator excluded) under each `#### Action (n)` heading. */
function sections(markdown: string): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^#### (\w+) \((\d+)\)$/.exec(line);
    if (heading) {
      current = `${heading[1]} (${heading[2]})`;
      result[current] = [];
    } else if (current && line.startsWith('| ')) {
      result[current]?.push(line);
    } else if (line.startsWith('#') || line.startsWith('>')) {
      current = undefined;
    }
  }
  for (const rows of Object.values(result)) rows.splice(0, 2);
  return result;
}

describe('renderMarkdown', () => {
  it('starts with a title and the summary line, then a risk callout, then one table per action', () => {
    const markdown = renderMarkdown(mixedPlan());
    const lines = markdown.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '### websites-sync plan',
      '',
      '**Plan: 1 to create, 2 to update, 1 to delete, 1 unchanged.**',
    ]);
    expect(lines.filter((l) => l.startsWith('#### '))).toEqual([
      '#### Delete (1)',
      '#### Update (2)',
      '#### Create (1)',
    ]);
    expect(markdown.indexOf('[!WARNING]')).toBeLessThan(markdown.indexOf('#### Delete'));
  });

  it('has one row per change, with exact cells', () => {
    const tables = sections(renderMarkdown(mixedPlan()));
    expect(tables).toEqual({
      'Delete (1)': [
        '| old.example.com | 9 | privacy: `private`<br>email: `false`<br>exclude_bots: `true` | ⚠️ deletes the website and its statistics |',
      ],
      'Update (2)': [
        '| a.example.com | 1 | privacy: `private` → `public`<br>exclude_bots: `true` → `false` | ⚠️ statistics become public<br>⚠️ bot exclusion turned off |',
        '| b.example.com | 2 | email: `false` → `true` |  |',
      ],
      'Create (1)': [
        '| new.example.com | privacy: `password`<br>email: `false`<br>exclude_bots: `true`<br>exclude_ips: `[203.0.113.7]`<br>password: (sensitive) |  |',
      ],
    });
  });

  it('gives tables the columns of their action', () => {
    const markdown = renderMarkdown(mixedPlan());
    expect(markdown).toContain('| Website | ID | Settings destroyed | Risk |\n| --- | --- | --- | --- |');
    expect(markdown).toContain('| Website | ID | Changes | Risk |\n| --- | --- | --- | --- |');
    expect(markdown).toContain('| Website | Settings | Risk |\n| --- | --- | --- |');
  });

  it('lists each risky change once in a warning callout', () => {
    const callout = renderMarkdown(mixedPlan())
      .split('\n')
      .filter((l) => l.startsWith('>'));
    expect(callout).toEqual([
      '> [!WARNING]',
      '> **Risky changes (2)**: review them before applying.',
      '>',
      '> - ⚠️ **old.example.com**: deletes the website and its statistics',
      '> - ⚠️ **a.example.com**: statistics become public; bot exclusion turned off',
    ]);
  });

  it('masks secrets exactly as the other formats and shows unreadable values as words', () => {
    const plan = mixedPlan();
    const markdown = renderMarkdown(plan);
    expect(markdown).not.toContain(PASSWORD);
    expect(markdown).toContain('password: (sensitive)');
    const unreadable = computePlan({
      desired: desiredState([desiredSite('a.example.com', { exclude_params: ['utm_source'] })]),
      current: [remoteSite(1, 'a.example.com')],
      state: emptyState('https://stats.example.com'),
      prune: false,
    });
    expect(renderMarkdown(unreadable)).toContain(
      '| a.example.com | 1 | exclude_params: `[utm_source]` _(will be sent: not readable from the service)_ |  |',
    );
  });

  it('escapes warnings and notes them after the tables', () => {
    const markdown = renderMarkdown(mixedPlan());
    expect(
      markdown.endsWith(
        '**Warnings**\n\n- websites.yaml:3:5: warning: websites\\[0\\].domain: "www." removed\n',
      ),
    ).toBe(true);
  });

  it('says there is nothing to do, and nothing else, for an empty plan', () => {
    const plan = computePlan({
      desired: desiredState([]),
      current: [remoteSite(1, 'legacy.example.com')],
      state: emptyState('https://stats.example.com'),
      prune: false,
    });
    expect(renderMarkdown(plan)).toBe(
      '### websites-sync plan\n\n**No changes. 0 website(s) match the manifest.**\n\n' +
        '1 website(s) on the account are not in the manifest and stay untouched (prune is off): legacy.example.com\n',
    );
  });
});

describe('markdown escaping', () => {
  it.each([
    ['plain', '`plain`'],
    ['a|b', '`a\\|b`'],
    ['a`b', '``a`b``'],
    ['`x', '`` `x ``'],
  ])('codeSpan(%j) is %j', (text, expected) => {
    expect(codeSpan(text)).toBe(expected);
  });

  it('escapes Markdown syntax in free text', () => {
    expect(escapeMarkdown('a *b* [c](d) <e> | f_g')).toBe('a \\*b\\* \\[c\\](d) \\<e\\> \\| f\\_g');
  });
});

describe('renderMarkdown for a large plan (issue 12 §3)', () => {
  function creates(count: number): Plan {
    return computePlan({
      desired: desiredState(
        Array.from({ length: count }, (_, i) =>
          desiredSite(`site-${i}.example.com`, { exclude_ips: ['203.0.113.7'] }),
        ),
      ),
      current: [],
      state: emptyState('https://stats.example.com'),
      prune: false,
    });
  }

  it('folds a long table in <details>, keeping the summary in view', () => {
    const markdown = renderMarkdown(creates(11));
    expect(markdown).toContain(
      '#### Create (11)\n\n<details><summary>Show the 11 websites</summary>\n\n| Website |',
    );
    expect(renderMarkdown(creates(10))).not.toContain('<details>');
  });

  it("stays within GitHub's 65,536-character comment limit and says what was cut", () => {
    const markdown = renderMarkdown(creates(2_000));
    expect(markdown.length).toBeLessThanOrEqual(65_536);
    expect(markdown).toContain('**Plan: 2000 to create, 0 to update, 0 to delete, 0 unchanged.**');
    const rows = markdown.split('\n').filter((l) => l.startsWith('| site-'));
    expect(rows.length).toBeGreaterThan(100);
    expect(markdown).toContain(`_…and ${2_000 - rows.length} more, not shown (see below)._`);
    expect(markdown).toContain(`> ${2_000 - rows.length} of 2000 changes are not listed here`);
    expect(markdown).toContain('`--output json`');
  });
});
