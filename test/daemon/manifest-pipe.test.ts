import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type StartedCli, startCli, toolEnv } from '../helpers/cli.js';
import { untilLogged } from '../helpers/postgres.js';

// The daemon reads its manifest again on every change and every resync: a pipe gives its text once.

let simulator: Simulator | undefined;
let cli: StartedCli | undefined;
afterEach(async () => {
  if (cli?.child.exitCode === null) cli.child.kill('SIGKILL');
  await cli?.done;
  await simulator?.close();
  cli = undefined;
  simulator = undefined;
});

describe('daemon: a manifest given as a pipe', () => {
  it('`-f <(sops -d …)`: says the manifest must be a file, not that it is empty, and sends nothing', async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-pipe-'));
    const source = join(dir, 'websites.yaml');
    await writeFile(source, 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const { WEBSITES_SYNC_MANIFEST: _, ...env } = toolEnv(simulator, dir);
    // As a shell runs `websites-sync -f <(cat websites.yaml)`.
    cli = startCli([], { ...env, WEBSITES_SYNC_LOG_FORMAT: 'json' }, [
      'bash',
      '-c',
      'exec "$@" -f <(cat "$0")',
      source,
    ]);
    await untilLogged(cli, /"msg":"run invalid_manifest/);
    const { stderr } = cli.output();
    expect(stderr).toMatch(/the manifest is a pipe, not a file: .*write it to a file and name that/);
    expect(stderr).not.toContain('the manifest is empty');
    expect(simulator.requests).toEqual([]);
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(0);
  });
});
