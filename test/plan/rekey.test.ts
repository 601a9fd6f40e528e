import { describe, expect, it } from 'vitest';
import { computePlan } from '../../src/plan/index.js';
import {
  emptyState,
  fingerprint,
  fingerprintKey,
  recordApplied,
  recordLifecycle,
  recordNormalised,
  type StateData,
  storedPart,
  withPreviousSecrets,
} from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

// After the API key is rotated, fingerprints recorded under the key before are recognised when the run
// is given it (withPreviousSecrets), listed in plan.remember.rekeyed, and recorded again under the
// current key by the run; a value that changed matches none of the keys and is still sent.
const BASE = 'https://stats.example.com';
const A = { id: 1, domain: 'a.example.com' };

/** A state recorded under the secret `old`, then read by a run whose key is `now` (as loadState keys it). */
function rotated(record: (state: StateData) => void, previous: string[] = ['old']): StateData {
  const before = emptyState(BASE, 'old');
  record(before);
  const after = { ...structuredClone(storedPart(before)), key: fingerprintKey('now', before.salt) };
  return withPreviousSecrets(after, previous);
}

const password = (value: string) =>
  desiredSite('a.example.com', { privacy: 2, password: value, exclude_params: ['ref'] });

function planOf(state: StateData, website = password('p1')) {
  return computePlan({
    desired: desiredState([website]),
    current: [remoteSite(1, 'a.example.com', { privacy: 2, hasPassword: true })],
    state,
    prune: false,
  });
}

const recordBoth = (state: StateData) => {
  recordApplied(state, A, 'password', 'p1');
  recordApplied(state, A, 'exclude_params', ['ref']);
};

describe('fingerprints recorded under the API key before a rotation', () => {
  it.each([
    { given: 'without the key before', previous: [], changes: 1, rekeyed: 0 },
    { given: 'with the key before', previous: ['old'], changes: 0, rekeyed: 2 },
    { given: 'with another key only', previous: ['unrelated'], changes: 1, rekeyed: 0 },
  ])('$given: $changes change(s), $rekeyed re-recorded', ({ previous, changes, rekeyed }) => {
    const plan = planOf(rotated(recordBoth, previous));
    expect(plan.changes).toHaveLength(changes);
    expect(plan.remember.rekeyed ?? []).toHaveLength(rekeyed);
  });

  it.each([
    { what: 'the password', website: password('p2'), sent: { password: 'p2' } },
    {
      what: 'exclude_params',
      website: desiredSite('a.example.com', { privacy: 2, password: 'p1', exclude_params: ['utm'] }),
      sent: { exclude_params: ['utm'] },
    },
  ])('a changed value ($what) is still sent; the unchanged one is re-recorded', ({ website, sent }) => {
    const plan = planOf(rotated(recordBoth), website);
    expect(plan.changes).toMatchObject([{ kind: 'update', send: sent }]);
    expect(plan.changes[0]?.kind === 'update' && Object.keys(plan.changes[0].send)).toEqual(
      Object.keys(sent),
    );
    expect(plan.remember.rekeyed).toHaveLength(1);
  });

  it('the run records them under the current key: the key before is needed no more', () => {
    const state = rotated(recordBoth);
    const plan = planOf(state);
    expect(recordLifecycle(state, plan.remember)).toBe(true);
    expect(state.websites['1']?.fingerprints).toEqual({
      password: fingerprint(state, 'password', 'p1'),
      exclude_params: fingerprint(state, 'exclude_params', ['ref']),
    });
    const alone = withPreviousSecrets(state, []);
    expect(planOf(alone).changes).toEqual([]);
    expect(planOf(alone).remember.rekeyed).toBeUndefined();
  });

  it('a normalisation recorded under the key before is known, and re-recorded', () => {
    const state = rotated((s) => {
      recordBoth(s);
      recordNormalised(s, A, 'exclude_ips', ['2001:DB8::1'], ['2001:db8::1']);
    });
    const website = desiredSite('a.example.com', {
      privacy: 2,
      password: 'p1',
      exclude_params: ['ref'],
      exclude_ips: ['2001:DB8::1'],
    });
    const current = [
      remoteSite(1, 'a.example.com', { privacy: 2, hasPassword: true, exclude_ips: ['2001:db8::1'] }),
    ];
    const plan = computePlan({ desired: desiredState([website]), current, state, prune: false });
    expect(plan.changes).toEqual([]);
    expect(plan.remember.rekeyed).toContainEqual(
      expect.objectContaining({ field: 'exclude_ips', normalised: true }),
    );
    recordLifecycle(state, plan.remember);
    expect(state.websites['1']?.normalised?.exclude_ips?.sent).toBe(
      fingerprint(state, 'exclude_ips', ['2001:DB8::1']),
    );
  });
});
