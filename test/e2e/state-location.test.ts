import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';

// Issue 19 §8: a cron job or a CI step starts from the repository root with `-f acct/websites.yaml`;
// the state the manifest's own folder holds must be the one it reads.
let simulator: Simulator;
let root: string;
let env: Record<string, string>;
const acct = () => join(root, 'acct');
const NO_STATE =
  'no state file at acct/.websites-sync-state.json: protections recorded by earlier runs are unknown';

beforeEach(async () => {
  simulator = await startSimulator({
    websites: [{ domain: 'keep.example.com' }, { domain: 'new.example.com' }],
  });
  root = await mkdtemp(join(tmpdir(), 'websites-sync-where-'));
  await mkdir(acct());
  env = { WEBSITES_SYNC_BASE_URL: simulator.url, WEBSITES_SYNC_API_KEY: simulator.apiKey };
});

afterEach(async () => {
  await simulator.close();
});

const pruneAllBut = (domain: string) => `version: 1\nprune: true\nwebsites:\n  - domain: ${domain}\n`;

describe('the default state file, wherever the run starts', () => {
  it('is the one beside the manifest: a protection recorded from its folder holds from the parent', async () => {
    await writeFile(
      join(acct(), 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: keep.example.com\n  - domain: new.example.com\n    protect: true\n',
    );
    const first = await runCli(['--once'], env, acct());
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(join(acct(), '.websites-sync-state.json'))).toBe(true);

    await writeFile(join(acct(), 'websites.yaml'), pruneAllBut('keep.example.com'));
    const fromRoot = await runCli(['--once', '-f', 'acct/websites.yaml'], env, root);
    expect(fromRoot.code, fromRoot.stderr).toBe(0);
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('new.example.com');
    expect(existsSync(join(root, '.websites-sync-state.json'))).toBe(false);
  });

  it('state show and restore find it from the parent too, with the manifest named as for a run', async () => {
    await writeFile(
      join(acct(), 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: keep.example.com\n  - domain: new.example.com\n    protect: true\n',
    );
    expect((await runCli(['--once'], env, acct())).code).toBe(0);
    await writeFile(join(acct(), 'websites.yaml'), pruneAllBut('new.example.com'));
    expect((await runCli(['--once', '--force'], env, acct())).code).toBe(0);

    const shown = await runCli(['state', 'show', '-f', 'acct/websites.yaml'], env, root);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('State: acct/.websites-sync-state.json');
    expect(shown.stdout).toMatch(/protected: 1\n {4}new\.example\.com/);
    const restored = await runCli(['restore', '-f', 'acct/websites.yaml'], env, root);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('- domain: keep.example.com');
    expect(existsSync(join(root, '.websites-sync-state.json'))).toBe(false);
  });

  it('when there is none and the plan deletes, every output says so at warn level', async () => {
    await writeFile(join(acct(), 'websites.yaml'), pruneAllBut('keep.example.com'));
    for (const format of ['text', 'markdown', 'json']) {
      const run = await runCli(['--once', '--dry-run', '-f', 'acct/websites.yaml', '-o', format], env, root);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout, format).toContain(NO_STATE);
    }
    const logged = await runCli(
      ['--once', '--dry-run', '-f', 'acct/websites.yaml', '--log-format', 'json'],
      env,
      root,
    );
    const warned = logged.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.level === 40 && String(entry.msg).includes(NO_STATE));
    expect(warned).toHaveLength(1);
  });

  it('a state file left in the current directory by an earlier version stops the run before any request', async () => {
    await writeFile(join(acct(), 'websites.yaml'), pruneAllBut('keep.example.com'));
    await writeFile(join(root, '.websites-sync-state.json'), '{}\n');
    const run = await runCli(['--once', '-f', 'acct/websites.yaml'], env, root);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'no state file at acct/.websites-sync-state.json, beside the manifest, where it is looked for when --state-file is not given; ./.websites-sync-state.json, in the current directory, is where earlier versions kept it.',
    );
    expect(simulator.requests).toEqual([]);
    expect(await readFile(join(root, '.websites-sync-state.json'), 'utf8')).toBe('{}\n');
  });

  it("another account's state file in the current directory is not taken for this manifest's", async () => {
    // As after following the README in a clone against one service, then running another manifest.
    await writeFile(join(acct(), 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: keep.example.com\n');
    await writeFile(join(root, 'websites.yaml'), 'version: 1\nwebsites: []\n');
    const other = JSON.stringify({ version: 2, base_url: 'https://other.example.com/', websites: {} });
    await writeFile(join(root, '.websites-sync-state.json'), other);
    const run = await runCli(['--once', '--dry-run', '-f', 'acct/websites.yaml'], env, root);
    expect(run.code, run.stderr).toBe(0);
    // The same account's: it may be either manifest's, and the run stops, saying both.
    const same = JSON.stringify({ version: 2, base_url: simulator.url, websites: {} });
    await writeFile(join(root, '.websites-sync-state.json'), same);
    const stopped = await runCli(['--once', '--dry-run', '-f', 'acct/websites.yaml'], env, root);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain(
      'is where earlier versions kept it, or the state of ./websites.yaml beside it. If it is this manifest',
    );
  });

  it('a --state-file in a folder that does not exist: the run says so and how to make it, before any request', async () => {
    await writeFile(join(acct(), 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: keep.example.com\n');
    const run = await runCli(
      ['--once', '-f', 'acct/websites.yaml', '--state-file', 'none/state.json'],
      env,
      root,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `its folder ${join(root, 'none')} does not exist: create it (mkdir -p ${join(root, 'none')}) or name another state file; nothing was changed`,
    );
    expect(simulator.requests).toEqual([]);
  });

  it('a --state-file given is relative to the current directory, as before', async () => {
    // exclude_params declared, so the run sends it and has a fingerprint to record (issue 19 §10: an
    // undeclared one is left alone, and a run that sends nothing has nothing to save).
    await writeFile(
      join(acct(), 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: keep.example.com\n    exclude_params: []\n',
    );
    const run = await runCli(['--once', '-f', 'acct/websites.yaml', '--state-file', 'here.json'], env, root);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(root, 'here.json'))).toBe(true);
  });
});
