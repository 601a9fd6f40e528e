import { describe, expect, it } from 'vitest';
import type { DesiredWebsite, RemoteWebsite } from '../../src/model/index.js';
import {
  computePlan,
  type Plan,
  type Risk,
  renderMarkdown,
  renderText,
  toJsonPlan,
} from '../../src/plan/index.js';
import { emptyState, recordApplied } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

// Changes that expose or destroy data are flagged in the plan and stand out in every format.

function planOf(desired: DesiredWebsite[], current: RemoteWebsite[], prune = false): Plan {
  const state = emptyState('https://stats.example.com');
  for (const record of current) recordApplied(state, record, 'exclude_params', []);
  for (const record of current) recordApplied(state, record, 'password', 'pw');
  return computePlan({ desired: desiredState(desired), current, state, prune });
}

describe('risk flags', () => {
  it.each<{ name: string; desired: DesiredWebsite[]; current: RemoteWebsite[]; risks: Risk[] }>([
    {
      name: 'privacy becoming public',
      desired: [desiredSite('a.example.com', { privacy: 0 })],
      current: [remoteSite(1, 'a.example.com')],
      risks: ['privacy-public'],
    },
    {
      name: 'a password removed (password → private)',
      desired: [desiredSite('a.example.com', { privacy: 1 })],
      current: [remoteSite(1, 'a.example.com', { privacy: 2, hasPassword: true })],
      risks: ['password-removed'],
    },
    {
      name: 'a password removed and the statistics public at once',
      desired: [desiredSite('a.example.com', { privacy: 0 })],
      current: [remoteSite(1, 'a.example.com', { privacy: 2, hasPassword: true })],
      risks: ['privacy-public', 'password-removed'],
    },
    {
      name: 'bot exclusion turned off',
      desired: [desiredSite('a.example.com', { exclude_bots: false })],
      current: [remoteSite(1, 'a.example.com')],
      risks: ['bot-exclusion-off'],
    },
    {
      name: 'protection added (private → password) is not risky',
      desired: [desiredSite('a.example.com', { privacy: 2, password: 'pw' })],
      current: [remoteSite(1, 'a.example.com')],
      risks: [],
    },
    {
      name: 'bot exclusion turned on is not risky',
      desired: [desiredSite('a.example.com', { exclude_bots: true })],
      current: [remoteSite(1, 'a.example.com', { exclude_bots: false })],
      risks: [],
    },
  ])('$name → $risks', ({ desired, current, risks }) => {
    const [change] = planOf(desired, current).changes;
    expect(change?.risks).toEqual(risks);
    const json = toJsonPlan(planOf(desired, current)).changes[0];
    expect(json).toMatchObject({ risks, risky: risks.length > 0 });
  });

  it('flags every delete', () => {
    const plan = planOf([], [remoteSite(1, 'a.example.com'), remoteSite(2, 'b.example.com')], true);
    expect(plan.changes.map((c) => [c.kind, c.risks])).toEqual([
      ['delete', ['delete']],
      ['delete', ['delete']],
    ]);
  });
});

describe('risky changes stand out in every format', () => {
  const plan = planOf(
    [desiredSite('public.example.com', { privacy: 0 }), desiredSite('calm.example.com', { email: true })],
    [
      remoteSite(1, 'public.example.com'),
      remoteSite(2, 'calm.example.com'),
      remoteSite(3, 'old.example.com'),
    ],
    true,
  );

  it('text: a `!` line under the change, in capitals', () => {
    const text = renderText(plan, { color: false });
    expect(text.split('\n').filter((l) => l.includes('!'))).toEqual([
      '- old.example.com (id 3)  ! DELETES THE WEBSITE AND ITS STATISTICS',
      '    ! STATISTICS BECOME PUBLIC',
    ]);
  });

  it('json: `risks` and a `risky` flag per change', () => {
    const changes = toJsonPlan(plan).changes.map((c) => [c.domain, c.risky, c.risks]);
    expect(changes).toEqual([
      ['old.example.com', true, ['delete']],
      ['calm.example.com', false, []],
      ['public.example.com', true, ['privacy-public']],
    ]);
  });

  it('markdown: a callout counting them and a ⚠️ in their row only', () => {
    const markdown = renderMarkdown(plan);
    expect(markdown).toContain('> **Risky changes (2)**');
    const rows = markdown.split('\n').filter((l) => /^\| [a-z]/.test(l));
    expect(rows.map((r) => [r.split(' | ')[0], r.includes('⚠️')])).toEqual([
      ['| old.example.com', true],
      ['| calm.example.com', false],
      ['| public.example.com', true],
    ]);
  });
});
