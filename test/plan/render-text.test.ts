import { describe, expect, it } from 'vitest';
import { terminalText } from '../../src/model/index.js';
import { computePlan, renderText } from '../../src/plan/index.js';
import { emptyState, recordApplied } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

function samplePlan() {
  const plan = computePlan({
    desired: desiredState([
      desiredSite('a.example.com', { privacy: 0 }),
      desiredSite('shop.example.com', { privacy: 2, password: 'hunter2' }),
    ]),
    current: [remoteSite(1, 'a.example.com'), remoteSite(2, 'old.example.com')],
    state: emptyState('https://stats.example.com'),
    prune: true,
  });
  plan.warnings.push('websites.yaml:3:13: warning: websites[0].domain: "www." removed');
  return plan;
}

describe('renderText', () => {
  it('shows each change Terraform-style, warnings as they are, and a summary line', () => {
    const text = renderText(samplePlan(), { color: false });
    expect(text.split('\n')).toEqual([
      'websites-sync will make these changes (+ create, ~ update in place, - delete):',
      '',
      '- old.example.com (id 2)  ! DELETES THE WEBSITE AND ITS STATISTICS',
      '    privacy: private',
      '    email: false',
      '    exclude_bots: true',
      '~ a.example.com (id 1)',
      '    privacy: private → public',
      '    exclude_params: []  (will be sent, replacing a value the service does not show; --adopt records it instead)',
      '    ! STATISTICS BECOME PUBLIC',
      '+ shop.example.com',
      '    privacy: password',
      '    email: false',
      '    exclude_bots: true',
      '    password: (sensitive)',
      '',
      'websites.yaml:3:13: warning: websites[0].domain: "www." removed',
      'Plan: 1 to create, 1 to update, 1 to delete, 0 unchanged.',
      '',
    ]);
    expect(text).not.toContain('hunter2');
  });

  it('colours only when asked', () => {
    expect(renderText(samplePlan(), { color: false })).not.toContain('\u001b[');
    // The codes are marked as the tool's own: the process's streams (terminalText) write them as codes.
    expect(terminalText(renderText(samplePlan(), { color: true }))).toContain(
      '\u001b[31m-\u001b[0m old.example.com',
    );
  });
});

describe('renderText: a plan an operator can read (issue 12 §3)', () => {
  const BASE = 'https://stats.example.com';

  it('lists a list change element by element, and says how many unchanged websites are hidden', () => {
    const state = emptyState(BASE);
    recordApplied(state, { id: 1, domain: 'a.example.com' }, 'exclude_params', []);
    recordApplied(state, { id: 2, domain: 'b.example.com' }, 'exclude_params', []);
    const plan = computePlan({
      desired: desiredState([
        desiredSite('a.example.com', { exclude_ips: ['203.0.113.7', '198.51.100.2'] }),
        desiredSite('b.example.com'),
      ]),
      current: [
        remoteSite(1, 'a.example.com', { exclude_ips: ['198.51.100.2', '192.0.2.9'] }),
        remoteSite(2, 'b.example.com'),
      ],
      state,
      prune: false,
    });
    const lines = renderText(plan, { color: false }).split('\n');
    expect(lines.slice(2, 6)).toEqual([
      '~ a.example.com (id 1)',
      '    exclude_ips:',
      '      + 203.0.113.7',
      '      - 192.0.2.9',
    ]);
    expect(lines).toContain('(1 unchanged website hidden)');
  });

  it('a first run resending write-only fields is not drift: said apart and counted apart', () => {
    const plan = computePlan({
      desired: desiredState([desiredSite('a.example.com'), desiredSite('b.example.com', { privacy: 0 })]),
      current: [remoteSite(1, 'a.example.com'), remoteSite(2, 'b.example.com')],
      state: emptyState(BASE),
      prune: false,
    });
    const text = renderText(plan, { color: false });
    expect(text).toContain(
      '~ a.example.com (id 1)\n    exclude_params: []  (will be sent, replacing a value the service does not show; --adopt records it instead)\n',
    );
    expect(text).toContain(
      'Plan: 0 to create, 2 to update (1 only to send write-only fields the service does not show, replacing what it holds; --adopt records them instead), 0 to delete, 0 unchanged.',
    );
    expect(text).not.toContain('(not readable from the service) →');
  });

  it('a plan that only holds a protected website back does not announce changes (issue 23 §4)', () => {
    const plan = computePlan({
      desired: desiredState([desiredSite('a.example.com')]),
      current: [remoteSite(1, 'a.example.com', { exclude_params: [] })],
      state: emptyState('https://stats.example.com'),
      prune: true,
    });
    plan.protected.push('kept.example.com');
    const text = renderText(plan, { color: false });
    expect(text).not.toContain('will make these changes');
    expect(text).toContain('websites-sync will make no change; it holds these back:');
    expect(text).toContain('No changes.');
  });
});
