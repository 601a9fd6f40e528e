import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// `state show` and the state command's words, with the file backend (the PostgreSQL one: test/state-pg).
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-state-cmd-'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

describe('websites-sync state', () => {
  it('show: the lock, the protections and the pending deletes of a state file, with since when', async () => {
    const manifest = (domains: string[]) =>
      `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n${d.startsWith('a.') ? '    protect: true\n' : ''}`).join('')}`;
    await writeFile(
      join(dir, 'websites.yaml'),
      manifest(['a.example.com', 'b.example.com', 'c.example.com']),
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    await writeFile(join(dir, 'websites.yaml'), manifest(['c.example.com']));
    expect((await runCli(['--once', '--prune', '--delete-delay', '1d'], env)).code).toBe(0);
    const shown = await runCli(['state', 'show'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`State: ${env.WEBSITES_SYNC_STATE_FILE}\nLock: free`);
    expect(shown.stdout).toMatch(/protected: 1\n {4}a\.example\.com \(id \d+\)/);
    expect(shown.stdout).toMatch(
      /pending deletes: 1\n {4}b\.example\.com \(id \d+\) planned for deletion since \d{4}-\d\d-\d\dT/,
    );
  });

  it('says what it takes when the action is missing or unknown', async () => {
    for (const args of [['state'], ['state', 'list']]) {
      const run = await runCli(args, env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'use: websites-sync state show, or websites-sync state migrate --from PATH|URL --to PATH|URL',
      );
    }
    const same = await runCli(['state', 'migrate', '--from', env.WEBSITES_SYNC_STATE_FILE as string], env);
    expect(same.code).toBe(1);
    expect(same.stderr).toContain('--from and --to are the same state');
  });

  it('a postgres:// URL at a port where no PostgreSQL answers: what to check, and that nothing changed', async () => {
    // Something listens there (another service, a proxy) and hangs up: not an unexplained "read ECONNRESET".
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const before = await readdir(dir);
      for (const args of [
        ['state', 'show'],
        ['state', 'migrate', '--to', join(dir, 'copy.json')],
      ]) {
        const run = await runCli([...args, '--state', `postgres://u@127.0.0.1:${port}/db`], env);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`PostgreSQL at postgres://127.0.0.1:${port}/db?schema=websites_sync`);
        expect(run.stderr).toContain(
          'check that the host and port are those of a PostgreSQL server; nothing was changed',
        );
      }
      expect(await readdir(dir)).toEqual(before);
    } finally {
      server.close();
    }
  });

  it('a password in a `password` parameter: refused on the command line, never shown when it comes from the environment', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const url = `postgres://u@127.0.0.1:${port}/db?password=S3cr%23t%2Fpw`;
    try {
      const flag = await runCli(['state', 'show', '--state', url], env);
      expect(flag.code).toBe(1);
      expect(flag.stderr).toContain('a URL with a password is never accepted on the command line');
      const fromEnv = await runCli(['state', 'show'], { ...env, WEBSITES_SYNC_STATE: url });
      expect(fromEnv.code).toBe(1);
      expect(fromEnv.stderr).toContain(`PostgreSQL at postgres://127.0.0.1:${port}/db?schema=websites_sync`);
      for (const run of [flag, fromEnv]) {
        for (const secret of ['S3cr#t/pw', 'S3cr%23t%2Fpw'])
          expect(run.stdout + run.stderr).not.toContain(secret);
      }
    } finally {
      server.close();
    }
  });

  it('a password never shown: one with # in a state URL (which then does not parse), one in --base-url', async () => {
    const broken = 'postgres://ws:Tr0ub4dor#3xyz@127.0.0.1:5432/ops';
    const fromEnv = await runCli(['state', 'show'], { ...env, WEBSITES_SYNC_STATE: broken });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('WEBSITES_SYNC_STATE: "postgres://***@127.0.0.1:5432/ops" is not a URL');
    const show = await runCli(['state', 'show', '--base-url', 'http://bob:basicpw-9f2@127.0.0.1:1'], env);
    expect(show.stdout).toContain('No state for http://127.0.0.1:1 yet.');
    for (const run of [fromEnv, show]) {
      for (const secret of ['Tr0ub4dor', '3xyz', 'basicpw-9f2'])
        expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });

  it('a --state naming a directory is refused under the name it was given by', async () => {
    const run = await runCli(['state', 'show', '--state', dir], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`--state: ${dir} is a directory; give the path of a file`);
  });

  it('migrate from a state that holds nothing (a mistyped path) is refused, even with --force: the target keeps its state', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: a.example.com\n    protect: true\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    const target = env.WEBSITES_SYNC_STATE_FILE as string;
    const before = await readFile(target, 'utf8');
    const missing = join(dir, 'no-such-state.json');
    for (const extra of [[], ['--force']]) {
      const run = await runCli(['state', 'migrate', '--from', missing, '--to', target, ...extra], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`state migrate: ${missing} holds no state and no backups`);
      expect(run.stderr).toContain('nothing was changed');
    }
    expect(await readFile(target, 'utf8')).toBe(before);
  });

  it('migrate and show refuse a state with entries they cannot read, naming them, rather than copy or count it in part', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: a.example.com\n    protect: true\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    const source = env.WEBSITES_SYNC_STATE_FILE as string;
    const state = JSON.parse(await readFile(source, 'utf8')) as { protected: Record<string, unknown> };
    state.protected['5'] = { domain: 123 };
    await writeFile(source, JSON.stringify(state));
    const copy = join(dir, 'copy.json');
    const migrated = await runCli(['state', 'migrate', '--to', copy], env);
    expect(migrated.code).toBe(1);
    expect(migrated.stderr).toContain('has entries that cannot be read (protection: 1 entry)');
    expect(await readdir(dir)).not.toContain('copy.json');
    const shown = await runCli(['state', 'show'], env);
    expect(shown.code).not.toBe(0);
    expect(shown.stderr).toContain('has entries that cannot be read (protection: 1 entry)');
  });

  it('show refuses the options of migrate rather than ignore them', async () => {
    for (const option of ['--from', '--to', '--force']) {
      const args = option === '--force' ? [option] : [option, join(dir, 'other.json')];
      const run = await runCli(['state', 'show', ...args], env);
      expect(run.code, option).toBe(1);
      expect(run.stderr).toContain(`state show: ${option} belongs to state migrate`);
    }
  });
});
