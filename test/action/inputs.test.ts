import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/action/inputs.js';
import { ACTION } from '../helpers/action.js';

// The Action's inputs as the runner hands them over (INPUT_<NAME>): an input named like an option of
// the command line becomes that option; a mistake is refused naming the input.

const env = (inputs: Record<string, string>) =>
  Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]));

describe('readInputs', () => {
  it("turns option inputs into the command line's flags, the Action's own into settings", () => {
    const inputs = readInputs(
      env({
        command: 'plan',
        prune: 'true',
        force: 'false',
        'rate-budget': '50',
        'api-key': 'k',
        'state-branch': '',
      }),
    );
    expect(inputs.command).toBe('plan');
    expect(inputs.flags.sort()).toEqual(['--prune', '--rate-budget=50']);
    expect(inputs.apiKey).toBe('k');
    expect(inputs.stateBranch).toBe('');
    expect(inputs.planBranch).toBe('websites-sync-plans');
    expect(inputs.gitTimeoutMs).toBe(5 * 60_000);
    expect(readInputs(env({ command: 'plan', 'git-timeout': '90s' })).gitTimeoutMs).toBe(90_000);
  });

  it.each([
    [{ command: 'deploy' }, 'input command: "deploy" is not a job; use plan, apply or drift'],
    [{ command: 'plan', prune: 'yes' }, 'input prune: "yes" is not a boolean; use true or false'],
    [{ command: 'plan', out: 'x.json' }, 'input out: set by the action itself'],
    [
      { command: 'plan', 'no-such-option': '1' },
      'input no-such-option: this version of websites-sync has no option --no-such-option',
    ],
    [{ command: 'apply', 'apply-unreviewed': 'maybe' }, 'input apply-unreviewed: "maybe" is not a boolean'],
    [{ command: 'plan', 'git-timeout': '2h' }, 'input git-timeout: "2h" is not a duration from 1s to 1h'],
    [{ command: 'plan', 'git-timeout': 'soon' }, 'input git-timeout: "soon" is not a duration from 1s to 1h'],
    [
      { command: 'drift', 'drift-label': 'sync,drift' },
      'input drift-label: "sync,drift" holds a comma, which GitHub\'s issue search reads as two labels',
    ],
  ])('refuses %j', (inputs, message) => {
    expect(() => readInputs(env(inputs))).toThrow(message);
  });
});

describe('the bundle, given a refused input', () => {
  it('fails with the one line that says why, even where the runner gave no outputs file', () => {
    const run = spawnSync(process.execPath, [ACTION], {
      env: {
        PATH: process.env.PATH,
        INPUT_COMMAND: 'deploy',
        GITHUB_OUTPUT: join(tmpdir(), 'websites-sync-no-such-dir', 'output'),
      },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('::error::websites-sync: input command: "deploy" is not a job');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
  });
});
