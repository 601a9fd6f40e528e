import { mkdtemp, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES } from '../../src/manifest/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type StartedCli, startCli, toolEnv } from '../helpers/cli.js';
import { untilLogged } from '../helpers/postgres.js';

// The daemon reads its manifest again on every change and every resync: a pipe gives its text once.
// And never past MAX_MANIFEST_BYTES, as a run (test/e2e/manifest-size.test.ts).

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
    expect(stderr).toMatch(
      /the file is a FIFO, not a regular file; give a regular file holding a manifest: .*write it to a file and name that/,
    );
    expect(stderr).not.toContain('the manifest is empty');
    expect(simulator.requests).toEqual([]);
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(0);
  });
});

describe('daemon: a manifest larger than a manifest may be', () => {
  it('is refused as invalid (read no further than the bound), and nothing is sent', async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-size-'));
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_FORMAT: 'json' };
    // Where toolEnv points the daemon: sparse, one byte past the bound, it takes no room on the disk.
    const manifest = join(dir, 'websites.yaml');
    await writeFile(manifest, 'version: 1\nwebsites: []\n');
    await truncate(manifest, MAX_MANIFEST_BYTES + 1);
    cli = startCli([], env);
    await untilLogged(cli, /"msg":"run invalid_manifest/);
    expect(cli.output().stderr).toContain(
      'the file holds 67,108,865 bytes; at most 67,108,864 (64 MiB) are allowed for a manifest (one of 100,000 websites is about 6 MiB): is it the right file? It was not read further',
    );
    expect(simulator.requests).toEqual([]);
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(0);
  });
});
