import { describe, expect, it } from 'vitest';
import { checkDeleteGuard, emptyPlan, type Plan } from '../../src/plan/index.js';

function planDeleting(deletes: number, accountSize: number): Plan {
  const changes = Array.from({ length: deletes }, (_, i) => ({
    kind: 'delete' as const,
    id: i + 1,
    domain: `d${i}.example.com`,
    fields: [],
    risks: ['delete' as const],
  }));
  return { ...emptyPlan(accountSize), changes };
}

describe('checkDeleteGuard', () => {
  it.each([
    { deletes: 0, account: 100, empty: false, refused: false },
    { deletes: 10, account: 100, empty: false, refused: false },
    { deletes: 11, account: 100, empty: false, refused: true },
    { deletes: 2, account: 8, empty: false, refused: false },
    { deletes: 3, account: 8, empty: false, refused: true },
    { deletes: 3, account: 7, empty: false, refused: false },
    { deletes: 1, account: 50, empty: true, refused: true },
  ])(
    '$deletes deletes of $account (empty list: $empty) refused: $refused',
    ({ deletes, account, empty, refused }) => {
      const verdict = checkDeleteGuard({ plan: planDeleting(deletes, account), websitesEmpty: empty });
      expect(verdict !== undefined).toBe(refused);
      if (verdict) expect(verdict).toContain('--force');
    },
  );

  it('says how far over the threshold the plan is', () => {
    expect(checkDeleteGuard({ plan: planDeleting(3, 8), websitesEmpty: false })).toContain(
      '37.50% is over 25.00%',
    );
  });
});
