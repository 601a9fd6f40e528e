import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// State that cannot diverge or wedge the tool (issue 10 §5), from the built CLI.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'a.example.com' }] });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-state-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    'version: 1\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n',
  );
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

describe('the state file', () => {
  it('a state path that is a directory: exit 1 naming it, before any change is sent', async () => {
    await mkdir(env.WEBSITES_SYNC_STATE_FILE as string);
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `WEBSITES_SYNC_STATE_FILE: ${env.WEBSITES_SYNC_STATE_FILE} is a directory; give the path of a file`,
    );
    expect(run.stderr).not.toContain('internal error');
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a malformed entry is unknown for its website alone: the run converges instead of crashing', async () => {
    const id = simulator.listWebsites()[0]!.id;
    await writeFile(
      env.WEBSITES_SYNC_STATE_FILE as string,
      JSON.stringify({
        version: 1,
        base_url: simulator.url,
        salt: '0123456789abcdef0123',
        websites: { [id]: { domain: 'a.example.com', fingerprints: null } },
      }),
    );
    const run = await runCli(['--once'], env);
    expect(run.code, run.stderr).toBe(0);
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
  });

  it('a lock left by a run that died is taken over', async () => {
    await writeFile(`${env.WEBSITES_SYNC_STATE_FILE}.lock`, '2147483646\n');
    const run = await runCli(['--once'], env);
    expect(run.code, run.stderr).toBe(0);
  });
});
