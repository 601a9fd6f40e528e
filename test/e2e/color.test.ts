import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 12 §5: FORCE_COLOR is honoured (a CI log that renders ANSI colours gets them through a pipe).
let simulator: Simulator;
afterEach(async () => {
  await simulator.close();
});

async function plan(env: Record<string, string | undefined>, args: string[] = []) {
  simulator = await startSimulator({ websites: [] });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-color-'));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
  return runCli(['--once', '--dry-run', ...args], { ...toolEnv(simulator, dir), ...env });
}

const ESC = '\u001b[';

describe('FORCE_COLOR', () => {
  it('colours the plan even into a pipe, over NO_COLOR', async () => {
    const run = await plan({ FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${ESC}`);
  });

  it('0 keeps it plain, and so does a pipe without it', async () => {
    expect((await plan({ FORCE_COLOR: '0' })).stdout).not.toContain(ESC);
    await simulator.close();
    expect((await plan({})).stdout).not.toContain(ESC);
  });

  it('never colours JSON', async () => {
    const run = await plan({ FORCE_COLOR: '1' }, ['-o', 'json']);
    expect(run.stdout).not.toContain(ESC);
    expect(() => JSON.parse(run.stdout)).not.toThrow();
  });
});

// Logs follow the same rule as the plan (useColor): pretty logs into a pipe, or with FORCE_COLOR=0 or
// NO_COLOR, carry no escape codes; FORCE_COLOR=1 colours them as it colours the plan.
describe('pretty logs on stderr', () => {
  const pretty = ['--log-format', 'pretty', '--log-level', 'info'];

  it.each([
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }],
    ['a pipe, nothing set', {}],
    ['NO_COLOR=1', { NO_COLOR: '1' }],
  ])('are plain with %s', async (_, env: Record<string, string>) => {
    // runCli sets NO_COLOR by default; unset here unless the case sets it.
    const run = await plan({ NO_COLOR: undefined, ...env }, pretty);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('plan computed');
    expect(run.stderr).not.toContain(ESC);
  });

  it('are coloured with FORCE_COLOR=1, as the plan is', async () => {
    const run = await plan({ FORCE_COLOR: '1' }, pretty);
    expect(run.stderr).toContain('plan computed');
    expect(run.stderr).toContain(ESC);
  });
});
