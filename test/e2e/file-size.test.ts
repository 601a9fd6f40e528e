import { mkdtemp, readdir, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Every local file the tool reads whole is refused past a bound that fits what it holds, by the one rule
// (model's readWholeFile), without being read further: a saved plan, the state, a simulator seed were
// read whole with no bound, a file of gigabytes (or a link to /dev/zero) until memory ran out, and a
// state of hundreds of megabytes was taken for a corrupt one and moved aside. The manifest's case:
// manifest-size.test.ts.

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

describe('a saved plan larger than one may be', () => {
  it('`--once --plan FILE` is refused with its size and the bound, and nothing is sent', async () => {
    const { dir, env } = await setUp();
    const size = 500 * MiB + 1;
    const plan = await sparse(join(dir, 'plan.json'), '{"format_version": 1}', size);
    const result = await runCli(['--once', '--plan', plan], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `websites-sync: --plan: ${plan}: it holds 524,288,001 bytes; at most 524,288,000 (500 MiB) are allowed for a saved plan (one of 100,000 changes is about 230 MiB)${REFUSED}`,
    );
    expect(writes(simulator as Simulator)).toEqual([]);
    expect(simulator?.listWebsites().map((w) => w.domain)).toEqual(['kept.example']);
    expect(await readdir(dir)).toEqual(['plan.json', 'websites.yaml']);
  });
});

describe('simulator --seed-file', () => {
  it('a seed larger than one may be is refused with its size and the bound', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-file-size-'));
    const seed = await sparse(join(dir, 'seed.json'), '[]', 64 * MiB + 1);
    const result = await runCli(['simulator', '--port', '0', '--seed-file', seed]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `--seed-file: ${seed} holds 67,108,865 bytes; at most 67,108,864 (64 MiB) are allowed for a seed (a list of websites) (`,
    );
    expect(result.stdout).not.toContain('listening');
  });

  it.skipIf(process.platform === 'win32')(
    'a link to /dev/zero is refused as a device, not read',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'websites-sync-file-size-'));
      const seed = join(dir, 'seed.json');
      await symlink('/dev/zero', seed);
      const result = await runCli(['simulator', '--port', '0', '--seed-file', seed]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `--seed-file: ${seed} is a character device, not a regular file; give a regular file holding a seed`,
      );
    },
  );
});

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
