import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A state file the tool cannot use (another base URL, corrupt) holds the only record of protections of
// websites no longer in the manifest: it is kept aside, never overwritten, said at warn level, and what
// it protects is not deleted without --force.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;
let statePath: string;

const PROTECTED =
  'version: 1\nprune: true\nwebsites:\n  - domain: p1.example.com\n    protect: true\n  - domain: p2.example.com\n';
const REMOVED = 'version: 1\nprune: true\nwebsites:\n  - domain: p2.example.com\n';
// Declares exclude_params, so the run sends it and writes a state file of its own.
const NO_PRUNE = 'version: 1\nwebsites:\n  - domain: p2.example.com\n    exclude_params: [ref]\n';

beforeEach(async () => {
  simulator = await startSimulator({});
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-discarded-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
  statePath = env.WEBSITES_SYNC_STATE_FILE as string;
});

afterEach(async () => {
  await simulator.close();
});

async function run(manifest: string, args: string[], baseUrl = simulator.url) {
  await writeFile(join(dir, 'websites.yaml'), manifest);
  return runCli(['--once', ...args], { ...env, WEBSITES_SYNC_BASE_URL: baseUrl });
}

const deletes = () => simulator.requests.filter((r) => r.method === 'DELETE');
const kept = async () => (await readdir(dir)).filter((name) => name.startsWith('state.json.discarded-'));

describe('a state file the tool cannot use', () => {
  it('another spelling of the service: the protection is kept aside, named, and still guards the delete', async () => {
    expect((await run(PROTECTED, [])).code).toBe(0);
    const original = await readFile(statePath, 'utf8');
    const other = simulator.url.replace('127.0.0.1', 'localhost');

    // A harmless run (no prune) against the same service spelled otherwise.
    const middle = await run(NO_PRUNE, [], other);
    expect(middle.code, middle.stderr).toBe(0);
    expect(middle.stderr).toContain(
      `it was written for ${simulator.url}, not for this run's base URL ${other}`,
    );
    expect(middle.stderr).toContain('It holds 1 protection(s) and 0 pending delete(s)');
    expect(middle.stderr).toContain('NOT in force');
    expect(middle.stderr).toContain(`"level":40`);
    const [copy] = await kept();
    expect(copy).toBeDefined();
    expect(await readFile(join(dir, copy as string), 'utf8')).toBe(original);
    expect((await stat(join(dir, copy as string))).mode & 0o777).toBe(0o600);
    expect(middle.stderr).toContain(`mv ${join(dir, copy as string)} ${statePath}`);

    // Back to the first spelling, p1 removed, prune on: p1 is not deleted without --force.
    const dry = await run(REMOVED, ['--dry-run'], simulator.url);
    expect(dry.code).toBe(3);
    expect(dry.stdout).toMatch(
      /Refused: 1 delete\(s\) \(p1\.example\.com \(id \d+\)\) are protected in a state file/,
    );
    const real = await run(REMOVED, [], simulator.url);
    expect(real.code).toBe(3);
    expect(deletes()).toEqual([]);
    // Two files kept aside, the first one untouched.
    expect((await kept()).length).toBe(2);
    expect(await readFile(join(dir, copy as string), 'utf8')).toBe(original);

    // Restored: the protection is in force again, and nothing needs --force.
    await writeFile(statePath, original);
    for (const name of await kept())
      await import('node:fs/promises').then((fs) => fs.unlink(join(dir, name)));
    const restored = await run(REMOVED, ['--dry-run'], simulator.url);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('kept: protected');
  });

  it('a corrupt state file is kept aside, said at warn level, and no delete is sent without --force', async () => {
    expect((await run(PROTECTED, [])).code).toBe(0);
    await writeFile(statePath, '{');
    const refused = await run(REMOVED, []);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      `the state file ${statePath} was not used: it is not a websites-sync state file (corrupt?)`,
    );
    expect(refused.stderr).toContain('What protections and pending deletes it holds cannot be read');
    expect(deletes()).toEqual([]);
    const [copy] = await kept();
    expect(await readFile(join(dir, copy as string), 'utf8')).toBe('{');
    // The operator decides: --force deletes.
    const forced = await run(REMOVED, ['--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(deletes()).toHaveLength(1);
  });

  it('a state file of another version is kept aside, not overwritten', async () => {
    expect((await run(PROTECTED, [])).code).toBe(0);
    const future = { ...JSON.parse(await readFile(statePath, 'utf8')), version: 2 };
    await writeFile(statePath, JSON.stringify(future));
    const refused = await run(REMOVED, []);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'it is version 2 of the state format, and this websites-sync reads version 1',
    );
    expect(refused.stderr).toContain('It holds 1 protection(s)');
    expect(JSON.parse(await readFile(join(dir, (await kept())[0] as string), 'utf8'))).toEqual(future);
  });
});
