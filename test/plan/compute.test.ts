import { describe, expect, it } from 'vitest';
import { computePlan, SENSITIVE, UNREADABLE } from '../../src/plan/index.js';
import { emptyState, recordApplied, recordNormalised, type StateData } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

const BASE = 'https://stats.example.com';

function stateWith(
  ...entries: Array<[id: number, domain: string, field: 'exclude_params' | 'password', value: unknown]>
) {
  const state = emptyState(BASE);
  for (const [id, domain, field, value] of entries) recordApplied(state, { id, domain }, field, value);
  return state;
}

describe('computePlan', () => {
  it.each([
    {
      name: 'a listed website missing on the account is created with every non-default setting',
      desired: [desiredSite('new.example.com', { privacy: 0, exclude_ips: ['203.0.113.7'] })],
      current: [],
      expected: [
        {
          kind: 'create',
          domain: 'new.example.com',
          sendKeys: ['email', 'exclude_bots', 'exclude_ips', 'privacy'],
        },
      ],
    },
    {
      name: 'a website that matches (exclude_params known by fingerprint) is unchanged',
      desired: [desiredSite('a.example.com', { exclude_params: ['utm_source'] })],
      current: [remoteSite(1, 'a.example.com')],
      state: stateWith([1, 'a.example.com', 'exclude_params', ['utm_source']]),
      expected: [],
      unchanged: 1,
    },
    {
      name: 'a changed readable setting is an update sending only that field',
      desired: [desiredSite('a.example.com', { email: true })],
      current: [remoteSite(1, 'a.example.com')],
      state: stateWith([1, 'a.example.com', 'exclude_params', []]),
      expected: [{ kind: 'update', domain: 'a.example.com', sendKeys: ['email'] }],
    },
    {
      name: 'an unknown write-only field is sent (resend once)',
      desired: [desiredSite('a.example.com')],
      current: [remoteSite(1, 'a.example.com')],
      expected: [{ kind: 'update', domain: 'a.example.com', sendKeys: ['exclude_params'] }],
    },
    {
      name: 'a write-only field whose fingerprint differs is sent',
      desired: [desiredSite('a.example.com', { exclude_params: ['fbclid'] })],
      current: [remoteSite(1, 'a.example.com')],
      state: stateWith([1, 'a.example.com', 'exclude_params', ['utm_source']]),
      expected: [{ kind: 'update', domain: 'a.example.com', sendKeys: ['exclude_params'] }],
    },
    {
      name: 'an account website not listed is left alone without prune',
      desired: [],
      current: [remoteSite(7, 'old.example.com')],
      expected: [],
      unmanaged: ['old.example.com'],
    },
    {
      name: 'with every listed website matched, the account websites left over are still found',
      desired: [desiredSite('a.example.com'), desiredSite('b.example.com')],
      current: [
        remoteSite(3, 'z.example.com'),
        remoteSite(1, 'a.example.com'),
        remoteSite(2, 'b.example.com'),
        remoteSite(4, 'y.example.com'),
      ],
      state: stateWith(
        [1, 'a.example.com', 'exclude_params', []],
        [2, 'b.example.com', 'exclude_params', []],
      ),
      expected: [],
      unchanged: 2,
      unmanaged: ['y.example.com', 'z.example.com'],
    },
    {
      name: 'a listed website missing and an unlisted one present: one create, one left alone',
      desired: [desiredSite('a.example.com'), desiredSite('new.example.com')],
      current: [remoteSite(1, 'a.example.com'), remoteSite(9, 'old.example.com')],
      state: stateWith([1, 'a.example.com', 'exclude_params', []]),
      expected: [
        { kind: 'create', domain: 'new.example.com', sendKeys: ['email', 'exclude_bots', 'privacy'] },
      ],
      unmanaged: ['old.example.com'],
    },
    {
      name: 'an account website not listed is deleted with prune',
      desired: [],
      current: [remoteSite(7, 'old.example.com')],
      prune: true,
      expected: [{ kind: 'delete', domain: 'old.example.com', sendKeys: undefined }],
    },
    {
      name: 'an ignored website is never deleted, even with prune',
      desired: [],
      current: [remoteSite(7, 'a.staging.example.com')],
      prune: true,
      ignore: ['*.staging.example.com'],
      expected: [],
      ignored: ['a.staging.example.com'],
    },
    {
      name: 'lists compare as sets: order on the service does not matter',
      desired: [desiredSite('a.example.com', { exclude_ips: ['192.0.2.1', '203.0.113.7'] })],
      current: [remoteSite(1, 'a.example.com', { exclude_ips: ['192.0.2.1', '203.0.113.7'] })],
      state: stateWith([1, 'a.example.com', 'exclude_params', []]),
      expected: [],
      unchanged: 1,
    },
    {
      name: 'identity is the canonical domain: a record stored in upper case still matches',
      desired: [desiredSite('a.example.com')],
      current: [remoteSite(1, 'A.Example.COM')],
      state: stateWith([1, 'A.Example.COM', 'exclude_params', []]),
      expected: [],
      unchanged: 1,
    },
  ])('$name', ({ desired, current, state, prune, ignore, expected, unchanged, unmanaged, ignored }) => {
    const plan = computePlan({
      desired: desiredState(desired, { ignore: ignore ?? [] }),
      current,
      state: state ?? emptyState(BASE),
      prune: prune ?? false,
    });
    expect(
      plan.changes.map((c) => ({
        kind: c.kind,
        domain: c.domain,
        sendKeys: c.kind === 'delete' ? undefined : Object.keys(c.send).sort(),
      })),
    ).toEqual(expected);
    if (unchanged !== undefined) expect(plan.unchanged).toBe(unchanged);
    if (unmanaged) expect(plan.unmanaged).toEqual(unmanaged);
    if (ignored) expect(plan.ignored).toEqual(ignored);
  });

  it('orders deletes, then updates, then creates', () => {
    const plan = computePlan({
      desired: desiredState([
        desiredSite('b-new.example.com'),
        desiredSite('a-upd.example.com', { email: true }),
      ]),
      current: [remoteSite(1, 'a-upd.example.com'), remoteSite(2, 'z-old.example.com')],
      state: stateWith([1, 'a-upd.example.com', 'exclude_params', []]),
      prune: true,
    });
    expect(plan.changes.map((c) => c.kind)).toEqual(['delete', 'update', 'create']);
  });

  it('masks the password and marks unreadable values in the displayed fields', () => {
    const plan = computePlan({
      desired: desiredState([
        desiredSite('shop.example.com', { privacy: 2, password: 'hunter2', exclude_params: ['ref'] }),
      ]),
      current: [remoteSite(3, 'shop.example.com', { privacy: 1 })],
      state: emptyState(BASE),
      prune: false,
    });
    const [change] = plan.changes;
    expect(change?.kind).toBe('update');
    expect(change?.fields).toEqual([
      { field: 'privacy', from: 'private', to: 'password' },
      { field: 'exclude_params', from: UNREADABLE, to: ['ref'], unknown: true },
      { field: 'password', from: null, to: SENSITIVE },
    ]);
    expect(JSON.stringify(change?.fields)).not.toContain('hunter2');
  });

  it('sends the password when it changed, known only by its fingerprint', () => {
    const desired = desiredState([desiredSite('shop.example.com', { privacy: 2, password: 'new-secret' })]);
    const current = [remoteSite(3, 'shop.example.com', { privacy: 2, hasPassword: true })];
    const same = stateWith(
      [3, 'shop.example.com', 'exclude_params', []],
      [3, 'shop.example.com', 'password', 'new-secret'],
    );
    const old = stateWith(
      [3, 'shop.example.com', 'exclude_params', []],
      [3, 'shop.example.com', 'password', 'old'],
    );
    expect(computePlan({ desired, current, state: same, prune: false }).changes).toEqual([]);
    const changed = computePlan({ desired, current, state: old, prune: false }).changes[0];
    expect(changed?.kind === 'update' && changed.send).toEqual({ password: 'new-secret' });
  });

  it('treats a value the service normalised as equal until the manifest changes', () => {
    const state: StateData = stateWith([1, 'a.example.com', 'exclude_params', []]);
    recordNormalised(
      state,
      { id: 1, domain: 'a.example.com' },
      'exclude_ips',
      ['2001:DB8::1'],
      ['2001:db8::1'],
    );
    const current = [remoteSite(1, 'a.example.com', { exclude_ips: ['2001:db8::1'] })];
    const same = desiredState([desiredSite('a.example.com', { exclude_ips: ['2001:DB8::1'] })]);
    expect(computePlan({ desired: same, current, state, prune: false }).changes).toEqual([]);
    const edited = desiredState([desiredSite('a.example.com', { exclude_ips: ['2001:DB8::2'] })]);
    expect(computePlan({ desired: edited, current, state, prune: false }).changes).toHaveLength(1);
  });

  it('flags changes that expose data', () => {
    const plan = computePlan({
      desired: desiredState([desiredSite('a.example.com', { privacy: 0, exclude_bots: false })]),
      current: [remoteSite(1, 'a.example.com', { privacy: 2, hasPassword: true })],
      state: stateWith([1, 'a.example.com', 'exclude_params', []]),
      prune: false,
    });
    expect(plan.changes[0]?.risks).toEqual(['privacy-public', 'password-removed', 'bot-exclusion-off']);
  });
});
