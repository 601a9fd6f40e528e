import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/apply/index.js';
import { emptyPlan } from '../../src/plan/index.js';
import { classifyRun, type ReconcileResult, summariseOutcome } from '../../src/reconcile/index.js';
import { AuthError } from '../../src/service/index.js';

// One classification of a run for --once and the daemon: "failed" means the same in both.
const plan = (changes = 1) => ({ ...emptyPlan(3), changes: Array(changes).fill({ kind: 'delete' }) });
const op = (result: Outcome['result']): Outcome => ({
  action: 'update',
  domain: 'a.example.com',
  id: 1,
  result,
});
const applied = (...results: Outcome['result'][]) => ({ outcomes: results.map(op), failed: 0 });
const auth = new AuthError('the key was refused', { method: 'GET', path: '/', status: 401 });

describe('classifyRun and summariseOutcome', () => {
  it.each<[string, Partial<ReconcileResult>, boolean, string, string, number]>([
    ['a dry run with changes', {}, true, 'planned', 'success', 0],
    ['an apply that succeeded', { applied: applied('updated') }, false, 'applied', 'success', 0],
    ['nothing to do', { plan: plan(0) }, false, 'applied', 'success', 0],
    [
      'a failed operation',
      { applied: applied('updated', 'failed') },
      false,
      'partially_applied',
      'failure',
      1,
    ],
    [
      'a shutdown mid-run',
      { applied: applied('updated', 'skipped') },
      false,
      'interrupted',
      'interrupted',
      1,
    ],
    ['a refusal by the guard', { refused: 'mass-delete guard: …' }, false, 'refused', 'refused', 3],
    ['a stale saved plan', { stale: ['the manifest changed'] }, false, 'stale', 'failure', 1],
    ['a refused key', { applied: { ...applied('skipped'), authError: auth } }, false, 'failed', 'failure', 1],
  ])('%s', (_name, result, dryRun, kind, label, exitCode) => {
    const outcome = classifyRun({ plan: plan(), ...result } as ReconcileResult, { dryRun });
    expect(outcome.kind).toBe(kind);
    expect(summariseOutcome(outcome)).toMatchObject({ result: label, exitCode });
  });

  it('a run with failures that also had deletes refused by the traffic guard says both', () => {
    const refusal = { id: 9, domain: 'shop.example.com', traffic: { kind: 'known' as const, visitors: 7 } };
    const guarded = { ...plan(), trafficRefused: [refusal], trafficWindowDays: 30 };
    const outcome = classifyRun({ plan: guarded, applied: applied('updated', 'failed') } as ReconcileResult, {
      dryRun: false,
    });
    const summary = summariseOutcome(outcome);
    expect(summary).toMatchObject({ result: 'failure', exitCode: 1 });
    expect(summary.reason).toContain('1 operation(s) failed');
    expect(summary.reason).toContain(
      'traffic guard: 1 delete(s) refused (shop.example.com: refused, 7 visitors',
    );
  });

  it('gives exit 2 for pending changes only with --detailed-exitcode', () => {
    const outcome = classifyRun({ plan: plan() } as ReconcileResult, { dryRun: true });
    expect(summariseOutcome(outcome, { detailedExitcode: true }).exitCode).toBe(2);
  });
});
