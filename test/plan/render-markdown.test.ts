import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/model/index.js';
import {
  codeSpan,
  computePlan,
  emptyPlan,
  escapeMarkdown,
  type Plan,
  RISK_MARK,
  renderMarkdown,
} from '../../src/plan/index.js';
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
      '| a.example.com | 1 | exclude_params: `[utm_source]` _(will be sent, replacing a value the service does not show; --adopt records it instead)_ |  |',
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

  it('mentions no one and links no issue: `@name` and `#12` from outside reach GitHub broken', () => {
    // GitHub notifies `@name` and back-links `#12` wherever they stand in the text it renders.
    const rendered = (markdown: string) => markdown.replaceAll('&#8203;', '\u200b').replace(/\\(.)/g, '$1');
    const reference = /(^|[^\w])[@#][\w-]/;
    expect(rendered(escapeMarkdown('ask @octocat or @acme/ops about #12'))).not.toMatch(reference);
    const plan: Plan = {
      ...emptyPlan(1),
      changes: [{ kind: 'delete', id: '#7', domain: '@octocat', fields: [], risks: ['delete'] }],
      warnings: ['the service said: ping @acme/ops, see acme/app#12'],
    };
    const markdown = rendered(renderMarkdown(plan));
    expect(markdown).toContain('@\u200boctocat'); // shown as `@octocat`
    expect(markdown).not.toMatch(reference);
  });

  it.each(['me@shop#1', 'p@ssw0rd!', '#hash_tag*', 'ab@c'])(
    'still lets the output mask a secret with `@` or `#` (%j) in the text it escapes',
    (secret) => {
      const redactor = new Redactor();
      redactor.add(secret);
      const shown = redactor.show(escapeMarkdown(`the service said: ${secret} is not allowed`));
      expect(shown).toBe('the service said: [redacted] is not allowed');
    },
  );

  it("escapes the service's ids too: a hostile id neither links nor splits a table row", () => {
    const hostile = '[pwn](https://e.vil)|<b>7';
    const plan: Plan = {
      ...emptyPlan(2),
      changes: [{ kind: 'delete', id: hostile, domain: 'old.example.com', fields: [], risks: ['delete'] }],
      pendingDeletes: [{ id: hostile, domain: 'later.example.com', since: '2026-01-01', due: '2026-02-01' }],
    };
    const markdown = renderMarkdown(plan);
    expect(markdown).not.toContain('[pwn](');
    expect(markdown).not.toContain('|<b>');
    expect(markdown).toContain('| old.example.com | \\[pwn\\](https://e.vil)\\|\\<b\\>7 |');
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
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown).toContain('**Plan: 2000 to create, 0 to update, 0 to delete, 0 unchanged.**');
    const rows = markdown.split('\n').filter((l) => l.startsWith('| site-'));
    expect(rows.length).toBeGreaterThan(100);
    expect(markdown).toContain(`_…and ${2_000 - rows.length} more, not shown (see below)._`);
    expect(markdown).toContain(`limit: ${2_000 - rows.length} of 2000 changes in the tables.`);
    expect(markdown).toContain('`--output json`');
  });

  it('names where the whole plan is, and the limit it was cut to, when the caller says', () => {
    const comment = renderMarkdown(creates(2_000), {
      wholePlanAt: '[the job summary](https://example.com/run)',
    });
    expect(comment).toContain('> The full plan: [the job summary](https://example.com/run).');
    expect(comment).not.toContain('`--output json`');
    const summary = renderMarkdown(creates(20_000), { maxLength: 100_000 });
    expect(summary).toContain('to fit 100,000 characters:');
    expect(summary).not.toContain('comment limit');
  });
});

// Issue 12 §3: the bound holds for the whole document; every list draws on one budget.
describe('renderMarkdown: one budget for every list', () => {
  const STATE = () => emptyState('https://stats.example.com');
  const site = (i: number) => `site-${i}.example.com`;
  const range = (count: number) => Array.from({ length: count }, (_, i) => i);

  /** `creates` new websites, `deletes` pruned ones, `publics` made public (risky updates). */
  function plan(creates: number, deletes: number, publics = 0): Plan {
    const current = [
      ...range(deletes).map((i) => remoteSite(i + 1, `gone-${i}.example.com`)),
      ...range(publics).map((i) => remoteSite(100_000 + i, `pub-${i}.example.com`)),
    ];
    return computePlan({
      desired: desiredState([
        ...range(creates).map((i) => desiredSite(site(i), { exclude_ips: ['203.0.113.7'] })),
        ...range(publics).map((i) => desiredSite(`pub-${i}.example.com`, { privacy: 0 })),
      ]),
      current,
      state: STATE(),
      prune: true,
    });
  }

  /** What the document lists: table rows per action, callout lines, and the lines of a bullet list. */
  function listed(markdown: string) {
    const tables = sections(markdown);
    const rows = (kind: string) =>
      Object.entries(tables).find(([heading]) => heading.startsWith(kind))?.[1].length ?? 0;
    const lines = markdown.split('\n');
    const bullets = (heading: string) => {
      const start = lines.findIndex((l) => l.startsWith(heading));
      if (start < 0) return 0;
      const end = lines.indexOf('', start + 2);
      return lines.slice(start + 2, end < 0 ? undefined : end).filter((l) => !l.includes('_…and')).length;
    };
    return {
      delete: rows('Delete'),
      update: rows('Update'),
      create: rows('Create'),
      callout: lines.filter((l) => l.startsWith(`> - ${RISK_MARK}`)).length,
      bullets,
    };
  }

  /** The note's count for one kind of list: exactly what was left out. */
  const noteCount = (cut: number, total: number, noun: string) => `${cut} of ${total} ${noun}`;

  it.each([
    ['3,000 creates', 3_000, 0, 0],
    ['3,000 deletes', 0, 3_000, 0],
    ['2,000 creates and 2,000 deletes', 2_000, 2_000, 0],
    ['creates, deletes and risky updates', 1_500, 1_500, 1_500],
    ['a few risky changes among 5,000 creates', 5_000, 3, 2],
  ])('%s: under 65,536 characters, listing what fits and counting what was cut', (_n, c, d, u) => {
    const markdown = renderMarkdown(plan(c, d, u));
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown).toContain(`**Plan: ${c} to create, ${u} to update, ${d} to delete, 0 unchanged.**`);
    const shown = listed(markdown);
    // Every non-empty table lists something (none is emptied for the callout's sake)...
    for (const [kind, total] of [
      ['delete', d],
      ['update', u],
      ['create', c],
    ] as const) {
      expect(shown[kind]).toBeGreaterThanOrEqual(Math.min(total, 50));
      if (shown[kind] < total) expect(markdown).toContain(`_…and ${total - shown[kind]} more, not shown`);
    }
    // ...and so does the callout, cut alike, saying how many more.
    const risky = d + u;
    expect(shown.callout).toBeGreaterThanOrEqual(Math.min(risky, 50));
    if (shown.callout < risky)
      expect(markdown).toContain(`> - _…and ${risky - shown.callout} more, not shown`);
    const tablesCut = c + u + d - (shown.create + shown.update + shown.delete);
    expect(markdown).toContain(noteCount(tablesCut, c + u + d, 'changes in the tables'));
    if (shown.callout < risky)
      expect(markdown).toContain(noteCount(risky - shown.callout, risky, 'risky changes in the callout'));
    else expect(markdown).not.toContain('in the callout');
  });

  it('cuts held-back lists and warnings too, and counts them in the note', () => {
    const big = plan(1_000, 1_000);
    for (const i of range(2_000)) {
      big.pendingDeletes.push({
        id: 50_000 + i,
        domain: `pending-${i}.example.com`,
        since: '2026-01-01T00:00:00Z',
        due: '2026-01-02T00:00:00Z',
      });
      big.protected.push(`kept-${i}.example.com`);
      big.warnings.push(`websites.yaml:${i + 3}:5: warning: websites[${i}].domain: "www." removed`);
    }
    const markdown = renderMarkdown(big);
    expect(markdown.length).toBeLessThan(65_536);
    const shown = listed(markdown);
    const lists = [
      ['#### Pending deletes (2000)', 'pending deletes'],
      ['#### Protected (2000)', 'protected websites'],
      ['**Warnings**', 'warnings'],
    ] as const;
    for (const [heading, noun] of lists) {
      const count = shown.bullets(heading);
      expect([heading, count > 0 && count < 2_000]).toEqual([heading, true]);
      expect(markdown).toContain(noteCount(2_000 - count, 2_000, noun));
    }
  });

  it('holds any budget it is given, and lists everything when everything fits', () => {
    for (const maxLength of [3_000, 10_000, 30_000]) {
      expect(renderMarkdown(plan(500, 500, 500), { maxLength }).length).toBeLessThanOrEqual(maxLength);
    }
    const small = renderMarkdown(plan(20, 20, 20));
    expect(listed(small)).toMatchObject({ create: 20, update: 20, delete: 20, callout: 40 });
    expect(small).not.toContain('[!NOTE]');
  });
});
