import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { actionYml } from '../helpers/action.js';

// The example workflow (examples/github-actions.yml) uses the Action: plan on pull requests, apply on
// the main branch, drift on a schedule. The Action itself is tested end to end in test/action/.

interface Step {
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { concurrency: { group: string; 'cancel-in-progress': string }; steps: Step[] }>;
}

const text = readFileSync(new URL('../../examples/github-actions.yml', import.meta.url), 'utf8');
const workflow = parse(text) as Workflow;
const job = Object.values(workflow.jobs)[0];
const action = job?.steps.find((s) => s.uses?.includes('/websites-sync@'));

describe('examples/github-actions.yml', () => {
  it('is about twenty lines of workflow, one job, the Action in one step', () => {
    expect(text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')).length).toBeLessThanOrEqual(
      30,
    );
    expect(Object.keys(workflow.jobs)).toHaveLength(1);
    expect(action).toBeDefined();
  });

  it('plans on pull requests, applies on pushes to main, checks drift on a schedule', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'schedule']);
    const command = action?.with?.command ?? '';
    expect(command).toContain("github.event_name == 'pull_request' && 'plan'");
    expect(command).toContain("github.event_name == 'push' && 'apply'");
    expect(command).toMatch(/\|\| 'drift' \}\}$/);
  });

  it('a pull request can never cancel or replace a pending apply', () => {
    const { group, 'cancel-in-progress': cancel } = job?.concurrency ?? {
      group: '',
      'cancel-in-progress': '',
    };
    expect(group).toContain("format('plan-{0}', github.event.pull_request.number)");
    expect(group).toContain("'apply'");
    expect(cancel).toBe(`\${{ github.event_name == 'pull_request' }}`);
  });

  it('gives only inputs the Action has, secrets only from secrets, and the permissions it needs', () => {
    const inputs = Object.keys(actionYml().inputs);
    for (const name of Object.keys(action?.with ?? {})) expect(inputs).toContain(name);
    expect(action?.with?.['api-key']).toBe(`\${{ secrets.WEBSITES_SYNC_API_KEY }}`);
    expect(workflow.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', issues: 'write' });
  });

  it('pins the Action to a full commit, never a moving tag or branch', () => {
    expect(action?.uses).toMatch(/@[0-9a-f]{40}$/);
    expect(text).not.toContain('actions/cache');
  });
});
