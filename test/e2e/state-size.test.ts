import { mkdtemp, readdir, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// The state file is read whole by the one rule of such files (model's readWholeFile): before, with no
// bound, a file of gigabytes was read until memory ran out, and one of hundreds of megabytes was taken
// for a corrupt state and moved aside. The other readers: file-size.test.ts.

const REFUSED = ': is it the right file? It was not read further';
const MiB = 1024 * 1024;

let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

/** A sparse file of `size` bytes (no room taken on the disk) that starts as `text`. */
async function sparse(path: string, text: string, size: number): Promise<string> {
  await writeFile(path, text);
  await truncate(path, size);
  return path;
}

async function setUp(): Promise<{ dir: string; env: Record<string, string> }> {
  simulator = await startSimulator({ websites: [{ domain: 'kept.example' }] });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-file-size-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    'version: 1\nprune: true\nwebsites:\n  - domain: new.example\n',
  );
  return { dir, env: toolEnv(simulator, dir) };
}

function writes(sim: Simulator): string[] {
  return sim.requests.filter((request) => request.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

describe('a state file larger than one may be', () => {
  it('`--once` refuses it as it is (not kept aside as unusable, not replaced), and nothing is sent', async () => {
    const { dir, env } = await setUp();
    const size = 256 * MiB + 1;
    const state = await sparse(join(dir, 'state.json'), '{"version": 1}', size);
    const result = await runCli(['--once', '--state-file', state], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `websites-sync: ${state} holds 268,435,457 bytes; at most 268,435,456 (256 MiB) are allowed for a state file (one of 100,000 websites is about 25 MiB)${REFUSED}`,
    );
    expect(writes(simulator as Simulator)).toEqual([]);
    expect(simulator?.listWebsites().map((w) => w.domain)).toEqual(['kept.example']);
    expect(await readdir(dir)).toEqual(['state.json', 'websites.yaml']);
    expect((await stat(state)).size).toBe(size);
  });

  it('`state show --state-file` says the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-file-size-'));
    const state = await sparse(join(dir, 'state.json'), '{"version": 1}', 2 ** 40);
    const result = await runCli(['state', 'show', '--state-file', state], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `websites-sync: ${state} holds 1,099,511,627,776 bytes; at most 268,435,456 (256 MiB) are allowed for a state file (`,
    );
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('a backup file larger than one may be is refused by `state show` and `restore` alike', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-file-size-'));
    const backups = await sparse(join(dir, '.websites-sync-deleted.jsonl'), '', 2 ** 40);
    const state = join(dir, 'state.json');
    const said = `websites-sync: ${backups} holds 1,099,511,627,776 bytes; at most 268,435,456 (256 MiB) are allowed for a backup file (one of 100,000 deleted websites is about 27 MiB)${REFUSED}`;
    const shown = await runCli(['state', 'show', '--state-file', state], {});
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(said);
    simulator = await startSimulator();
    const restored = await runCli(
      ['restore', 'gone.example', '--state-file', state],
      toolEnv(simulator, dir),
    );
    expect(restored.code).toBe(1);
    expect(restored.stderr).toContain(said);
    expect(writes(simulator)).toEqual([]);
    expect(await readdir(dir)).toEqual(['.websites-sync-deleted.jsonl']);
  });
});
