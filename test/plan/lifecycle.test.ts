import { describe, expect, it } from 'vitest';
import {
  changesOf,
  checkDeleteGuard,
  computePlan,
  renderMarkdown,
  renderText,
  toJsonPlan,
} from '../../src/plan/index.js';
import { emptyState, recordLifecycle, type StateData } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-24T10:00:00Z');
const DAY = 24 * HOUR;

function plan(state: StateData, now: number, listed = ['keep.example.com']) {
  const current = Array.from({ length: 12 }, (_, i) => remoteSite(i + 1, `site${i + 1}.example.com`));
  current.push(remoteSite(100, 'keep.example.com'));
  return computePlan({
    desired: desiredState(
      listed.map((domain) => desiredSite(domain)),
      { prune: true },
    ),
    current,
    state,
    prune: true,
    deleteDelayMs: DAY,
    now,
  });
}

describe('delete_delay in the (pure) plan: the clock comes in as `now`', () => {
  it('holds every delete back until it was planned for the whole delay, then makes it due', () => {
    const state = emptyState('https://stats.example.com');
    const first = plan(state, NOW);
    expect(changesOf(first, 'delete')).toEqual([]);
    expect(first.pendingDeletes).toHaveLength(12);
    expect(first.pendingDeletes[0]).toEqual({
      id: 1,
      domain: 'site1.example.com',
      since: '2026-11-24T10:00:00.000Z',
      due: '2026-11-25T10:00:00.000Z',
    });
    expect(renderText(first, { color: false })).toContain(
      '- site1.example.com (id 1): will be deleted after 2026-11-25 10:00 UTC, missing from the manifest since 2026-11-24 10:00 UTC',
    );
    // Twelve pending deletes are not twelve deletes: the guard looks at what is due now.
    expect(checkDeleteGuard({ plan: first, websitesEmpty: false })).toBeUndefined();
    recordLifecycle(state, first.remember);

    const later = plan(state, NOW + DAY - 1);
    expect(changesOf(later, 'delete')).toEqual([]);
    expect(later.pendingDeletes[0]?.since).toBe('2026-11-24T10:00:00.000Z');

    const due = plan(state, NOW + DAY);
    expect(changesOf(due, 'delete')).toHaveLength(12);
    expect(due.pendingDeletes).toEqual([]);
    expect(checkDeleteGuard({ plan: due, websitesEmpty: false })).toMatch(/mass-delete guard: 12 of 13/);
  });

  it('takes a website that comes back off the list, so a later removal starts the delay again', () => {
    const state = emptyState('https://stats.example.com');
    recordLifecycle(state, plan(state, NOW).remember);
    const back = plan(state, NOW + HOUR, ['keep.example.com', 'site1.example.com']);
    recordLifecycle(state, back.remember);
    expect(state.pending_deletes?.['1']).toBeUndefined();
    const again = plan(state, NOW + DAY + HOUR);
    expect(again.changes.map((c) => c.domain)).not.toContain('site1.example.com');
    expect(again.pendingDeletes.find((p) => p.id === 1)?.since).toBe(
      new Date(NOW + DAY + HOUR).toISOString(),
    );
  });

  it('never plans a protected website as a delete, due or pending', () => {
    const state = emptyState('https://stats.example.com');
    recordLifecycle(state, {
      protect: [{ id: 1, domain: 'site1.example.com' }],
      unprotect: [],
      deleting: [],
    });
    const result = plan(state, NOW + 2 * DAY);
    expect(result.protected).toEqual(['site1.example.com']);
    expect(result.changes.map((c) => c.domain)).not.toContain('site1.example.com');
    expect(result.pendingDeletes.map((p) => p.domain)).not.toContain('site1.example.com');
  });
});

describe('held back in every format', () => {
  it('shows observed drift, pending deletes and protected websites in markdown and JSON alike', () => {
    const state = emptyState('https://stats.example.com');
    recordLifecycle(state, { protect: [{ id: 2, domain: 'kept.example.com' }], unprotect: [], deleting: [] });
    const result = computePlan({
      desired: desiredState([desiredSite('seen.example.com', { email: true, observe: true })], {
        prune: true,
      }),
      current: [
        remoteSite(1, 'seen.example.com', { exclude_params: [] }),
        remoteSite(2, 'kept.example.com'),
        remoteSite(3, 'old.example.com'),
      ],
      state,
      prune: true,
      deleteDelayMs: DAY,
      now: NOW,
    });
    expect(result.changes).toEqual([]);
    const markdown = renderMarkdown(result);
    expect(markdown).toContain('#### Observed (1)');
    expect(markdown).toContain('- **seen.example.com**: email: `false` → `true`');
    expect(markdown).toContain(
      '- **old.example.com** (id 3): will be deleted after 2026-11-25 10:00 UTC, missing from the manifest since 2026-11-24 10:00 UTC',
    );
    expect(markdown).toContain(
      '- **kept.example.com**: kept: protected; to allow deleting it, apply \\`protect: false\\` for it first',
    );
    expect(toJsonPlan(result)).toMatchObject({
      summary: { delete: 0, observed: 1, pending_delete: 1, protected: 1 },
      observed: [{ action: 'update', id: 1, fields: { email: { from: false, to: true } } }],
      pending_deletes: [{ id: 3, due: '2026-11-25T10:00:00.000Z' }],
      protected: [{ domain: 'kept.example.com' }],
    });
  });
});

// Issue 19 §8: a run without its state file knows no protection an earlier run recorded; the fact comes
// in as data, and every format of the plan says it.
describe('a plan made without a state file', () => {
  const input = (prune: boolean, path?: string) => ({
    desired: desiredState([desiredSite('keep.example.com')], { prune }),
    current: [remoteSite(1, 'keep.example.com'), remoteSite(2, 'new.example.com')],
    state: emptyState('https://stats.example.com'),
    prune,
    ...(path ? { noState: { where: `state file at ${path}`, hint: 'point --state-file at it' } } : {}),
  });
  const warning =
    'no state file at acct/.websites-sync-state.json: protections recorded by earlier runs are unknown';

  it('says so in text, Markdown and JSON when it would delete', () => {
    const made = computePlan(input(true, 'acct/.websites-sync-state.json'));
    expect(changesOf(made, 'delete')).toHaveLength(1);
    expect(made.warnings[0]).toContain(warning);
    expect(renderText(made, { color: false })).toContain(warning);
    expect(renderMarkdown(made)).toContain(warning);
    expect(toJsonPlan(made).warnings[0]).toContain(warning);
  });

  it('says nothing when it deletes nothing, or when the state file is there', () => {
    expect(computePlan(input(false, 'acct/.websites-sync-state.json')).warnings).toEqual([]);
    expect(computePlan(input(true)).warnings).toEqual([]);
  });
});
