import { describe, expect, it } from 'vitest';
import { computePlan, renderMarkdown, renderText, toJsonPlan } from '../../src/plan/index.js';
import { emptyState, recordApplied } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

// Issue 19 §10: the service never returns exclude_params. A write-only field the manifest does not
// declare and websites-sync never sent is left as the service holds it (sending the default would
// wipe a value nobody can see); a declared one is sent, and the plan says it replaces that value.
const BASE = 'https://stats.example.com';
const UNDECLARED = ['exclude_params'] as const;

function plan(options: { declared?: string[]; sentBefore?: string[] }) {
  const state = emptyState(BASE);
  if (options.sentBefore)
    recordApplied(state, { id: 1, domain: 'a.example.com' }, 'exclude_params', options.sentBefore);
  const website = options.declared
    ? desiredSite('a.example.com', { exclude_params: options.declared })
    : desiredSite('a.example.com', { undeclared: UNDECLARED });
  return computePlan({
    desired: desiredState([website, desiredSite('b.example.com', { undeclared: UNDECLARED })]),
    current: [remoteSite(1, 'a.example.com'), remoteSite(2, 'b.example.com')],
    state,
    prune: false,
  });
}

describe('write-only fields the service does not show', () => {
  it('undeclared and never sent: not sent, and the plan says so once', () => {
    const result = plan({});
    expect(result.changes).toEqual([]);
    expect(result.keptWriteOnly).toEqual({ exclude_params: 2 });
    const note =
      'Not declared and never sent by websites-sync, so left as the service holds them (it does not show them): exclude_params on 2 website(s); declare a value in the manifest to set it';
    expect(renderText(result, { color: false })).toContain(`Note: ${note}.\nNo changes.`);
    expect(renderMarkdown(result)).toContain('exclude\\_params on 2 website(s)');
    expect(toJsonPlan(result).write_only_kept).toEqual({ exclude_params: 2 });
  });

  it('declared and never sent: sent, saying it replaces a value the service does not show', () => {
    const result = plan({ declared: ['utm_source'] });
    expect(result.changes).toMatchObject([
      { kind: 'update', id: 1, send: { exclude_params: ['utm_source'] }, fields: [{ unknown: true }] },
    ]);
    expect(result.keptWriteOnly).toEqual({ exclude_params: 1 });
    const text = renderText(result, { color: false });
    expect(text).toContain(
      'exclude_params: [utm_source]  (will be sent, replacing a value the service does not show; --adopt records it instead)',
    );
  });

  it('undeclared but sent before: the line was removed, so the default is sent (a removed line resets)', () => {
    const result = plan({ sentBefore: ['utm_source'] });
    expect(result.changes).toMatchObject([{ kind: 'update', id: 1, send: { exclude_params: [] } }]);
    expect(result.keptWriteOnly).toEqual({ exclude_params: 1 });
  });

  it('a readable field left undeclared is still the service default (listed websites are fully declared)', () => {
    const result = computePlan({
      desired: desiredState([desiredSite('a.example.com', { undeclared: ['email', 'exclude_params'] })]),
      current: [remoteSite(1, 'a.example.com', { email: true })],
      state: emptyState(BASE),
      prune: false,
    });
    expect(result.changes).toMatchObject([{ kind: 'update', send: { email: false } }]);
  });
});
