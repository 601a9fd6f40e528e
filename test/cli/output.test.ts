import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/apply/index.js';
import { renderReport } from '../../src/cli/output.js';
import { computePlan } from '../../src/plan/index.js';
import { emptyState } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

const plan = computePlan({
  desired: desiredState([desiredSite('new.example.com'), desiredSite('bad.example.com')]),
  current: [remoteSite(4, 'old.example.com')],
  state: emptyState('https://stats.example.com'),
  prune: true,
});

const applied: ApplyResult = {
  outcomes: [
    { action: 'delete', domain: 'old.example.com', id: 4, result: 'deleted' },
    { action: 'create', domain: 'new.example.com', id: 5, result: 'created' },
    {
      action: 'create',
      domain: 'bad.example.com',
      id: undefined,
      result: 'failed',
      error: 'domain: The domain has already been taken.',
    },
  ],
  failed: 1,
};

describe('renderReport --output markdown', () => {
  it('appends the apply result, each failure with the service message', () => {
    const markdown = renderReport({ plan, applied }, 'markdown', false);
    expect(markdown.startsWith('### websites-sync plan\n')).toBe(true);
    expect(
      markdown.endsWith(
        '**Apply finished with failures: 1 created, 0 updated, 1 deleted, 1 failed.**\n\n' +
          '- ✗ create **bad.example.com**: domain: The domain has already been taken.\n',
      ),
    ).toBe(true);
  });

  it('shows a refusal as a caution callout', () => {
    const markdown = renderReport({ plan, refused: 'mass-delete guard: 1 of 1 websites' }, 'markdown', false);
    expect(markdown).toContain('\n> [!CAUTION]\n> **Refused:** mass-delete guard: 1 of 1 websites\n');
  });

  it('keeps a result with thousands of failures within the comment limit, with the plan', () => {
    const domains = Array.from({ length: 3_000 }, (_, i) => `site-${i}.example.com`);
    const big = computePlan({
      desired: desiredState(domains.map((d) => desiredSite(d))),
      current: [],
      state: emptyState('https://stats.example.com'),
      prune: false,
    });
    const failures: ApplyResult = {
      outcomes: domains.map((domain) => ({
        action: 'create' as const,
        domain,
        id: undefined,
        result: 'failed' as const,
        error: 'domain: The domain has already been taken.',
      })),
      failed: 3_000,
    };
    const markdown = renderReport({ plan: big, applied: failures }, 'markdown', false);
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown).toContain(
      '**Apply finished with failures: 0 created, 0 updated, 0 deleted, 3000 failed.**',
    );
    const listed = markdown.split('\n').filter((l) => l.startsWith('- ✗ create')).length;
    expect(listed).toBeGreaterThan(50);
    expect(markdown).toContain(`- _…and ${3_000 - listed} more, not shown (see below)._`);
    expect(markdown).toContain(`${3_000 - listed} of 3000 unsuccessful operations`);
  });

  it('keeps the text format as it was', () => {
    const text = renderReport({ plan, applied }, 'text', false);
    expect(text).toContain(
      'Apply finished with failures: 1 created, 0 updated, 1 deleted, 1 failed.\n  ✗ create bad.example.com: domain: The domain has already been taken.\n',
    );
  });
});
