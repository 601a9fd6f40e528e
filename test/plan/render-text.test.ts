import { describe, expect, it } from 'vitest';
import { computePlan, renderText } from '../../src/plan/index.js';
import { emptyState } from '../../src/state/index.js';
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
      '- old.example.com (id 2)  ! DELETES THE WEBSITE AND ITS STATISTICS',
      '~ a.example.com (id 1)',
      '    privacy: private → public',
      '    exclude_params: (not readable from the service) → []',
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
    expect(renderText(samplePlan(), { color: true })).toContain('\u001b[31m-\u001b[0m old.example.com');
  });
});
