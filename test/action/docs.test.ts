import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OWN_INPUTS } from '../../src/action/inputs.js';
import { OPTION_TABLE } from '../../src/cli/options.js';
import { actionYml } from '../helpers/action.js';

// action.yml, its guide (docs/guides/github-action.md) and the example workflow say the same thing.

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');
describe('action.yml', () => {
  it('runs the committed bundle on node24', () => {
    const action = actionYml() as ReturnType<typeof actionYml> & { runs: { using: string; main: string } };
    expect(action.runs).toEqual({ using: 'node24', main: 'action/index.mjs' });
    expect(existsSync(fileURLToPath(new URL(`../../${action.runs.main}`, import.meta.url)))).toBe(true);
  });

  it("maps every input but the Action's own onto an option of the command line", () => {
    const options = OPTION_TABLE as Record<string, { commands: readonly string[] }>;
    for (const name of Object.keys(actionYml().inputs)) {
      if ((OWN_INPUTS as readonly string[]).includes(name)) continue;
      expect(options[name]?.commands, `input ${name}`).toContain('sync');
    }
  });
});

describe('docs/guides/github-action.md', () => {
  it('lists every input and output as action.yml has them (node scripts/action-docs.mjs)', () => {
    const guide = read('docs/guides/github-action.md');
    const script = fileURLToPath(new URL('../../scripts/action-docs.mjs', import.meta.url));
    const check = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    for (const name of Object.keys(actionYml().inputs)) expect(guide).toContain(`| \`${name}\` |`);
  });

  it('shows the example workflow as it is', () => {
    expect(read('docs/guides/github-action.md')).toContain(
      `\`\`\`yaml\n${read('examples/github-actions.yml')}\`\`\``,
    );
  });
});
