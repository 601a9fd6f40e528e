import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// `state migrate`: a file state and its backups into PostgreSQL and back, losing nothing.

let db: TestDatabase;
let simulator: Simulator;
let dir: string;
let fileEnv: Record<string, string>;

const entries = (domains: string[], protect: string[] = []) =>
  `version: 1\nwebsites:\n${domains
    .map(
      (d) =>
        `  - domain: ${d}\n    exclude_params: [utm_source]\n${protect.includes(d) ? '    protect: true\n' : ''}`,
    )
    .join('')}`;

async function sync(manifest: string, args: string[]): Promise<void> {
  await writeFile(join(dir, 'websites.yaml'), manifest);
  const run = await runCli(['--once', ...args], fileEnv);
  expect(run.code, run.stderr).toBe(0);
}

describe.skipIf(skipWithoutDatabase)('state migrate', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  beforeEach(async () => {
    simulator = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'websites-sync-migrate-'));
    fileEnv = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_FORMAT: 'json' };
    // Fingerprints, a protection, a pending delete and a backup of a deleted website.
    await sync(
      entries(['a.example.com', 'b.example.com', 'c.example.com', 'd.example.com'], ['a.example.com']),
      [],
    );
    await sync(entries(['b.example.com', 'c.example.com']), ['--prune', '--delete-delay', '0s']);
    await sync(entries(['b.example.com']), ['--prune', '--delete-delay', '1d']);
  });
  afterEach(async () => {
    await simulator.close();
  });

  it('file → PostgreSQL → file: the same state, field by field, and the same backups', async () => {
    const statePath = fileEnv.WEBSITES_SYNC_STATE_FILE as string;
    const original = JSON.parse(await readFile(statePath, 'utf8'));
    expect(Object.keys(original.protected)).toHaveLength(1);
    expect(Object.keys(original.pending_deletes)).toHaveLength(1);
    const backups = await readFile(join(dir, '.websites-sync-deleted.jsonl'), 'utf8');
    expect(backups.trim().split('\n')).toHaveLength(1);

    const url = db.stateUrl(db.schema());
    const pgEnv = { ...fileEnv, WEBSITES_SYNC_STATE: url };
    const into = await runCli(['state', 'migrate', '--from', statePath], pgEnv);
    expect(into.code, into.stderr).toBe(0);
    expect(into.stderr).toContain('Copied 1 account state(s) and 1 backup(s)');
    expect(into.stderr).not.toContain(db.password);

    // The copy is in force: a run on PostgreSQL is converged, protections and delays included.
    const dry = await runCli(
      ['--once', '--dry-run', '--detailed-exitcode', '--prune', '--delete-delay', '1d'],
      pgEnv,
    );
    expect(dry.code, dry.stdout).toBe(0);
    const show = await runCli(['state', 'show'], pgEnv);
    expect(show.stdout).toContain('protected: 1\n    a.example.com');
    expect(show.stdout).toMatch(
      /pending deletes: 1\n {4}c\.example\.com \(id \d+\) planned for deletion since \d{4}-/,
    );

    const again = await runCli(['state', 'migrate', '--from', statePath], pgEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `already holds the state or backups of ${simulator.url}; nothing was changed. Add --force`,
    );

    const back = join(dir, 'back', 'state.json');
    await mkdir(join(dir, 'back'));
    const out = await runCli(['state', 'migrate', '--to', back], pgEnv);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(await readFile(back, 'utf8'))).toEqual(original);
    const backBackups = await readFile(join(dir, 'back', '.websites-sync-deleted.jsonl'), 'utf8');
    expect(
      backBackups
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(
      backups
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
  });

  it('into a schema other accounts share: only the copied account is replaced, --force or not', async () => {
    const url = db.stateUrl(db.schema());
    // Another account in the same schema: its state (a protection) and the backup of a deleted website.
    const other = await startSimulator();
    const otherDir = await mkdtemp(join(tmpdir(), 'websites-sync-migrate-other-'));
    const otherEnv = { ...toolEnv(other, otherDir), WEBSITES_SYNC_STATE: url };
    try {
      for (const [manifest, args] of [
        [entries(['x.example.com', 'y.example.com'], ['x.example.com']), []],
        [entries(['x.example.com']), ['--prune', '--delete-delay', '0s']],
      ] as const) {
        await writeFile(join(otherDir, 'websites.yaml'), manifest);
        const run = await runCli(['--once', ...args], otherEnv);
        expect(run.code, run.stderr).toBe(0);
      }
      const before = await runCli(['state', 'show'], otherEnv);
      expect(before.stdout).toContain('protected: 1\n    x.example.com');

      const pgEnv = { ...fileEnv, WEBSITES_SYNC_STATE: url };
      const statePath = fileEnv.WEBSITES_SYNC_STATE_FILE as string;
      // A daemon leads the other account meanwhile: not in the way of this one's copy.
      const otherDaemon = await openStateStore({ location: url, baseUrl: other.url });
      const leading = await otherDaemon.lead();
      expect(leading).toBeDefined();
      // Nothing of this account there yet: copied without --force, the other account untouched.
      const into = await runCli(['state', 'migrate', '--from', statePath], pgEnv);
      expect(into.code, into.stderr).toBe(0);
      await leading?.release();
      // A daemon that leads the copied account is: the copy waits for no one, and says what to do.
      const thisDaemon = await openStateStore({ location: url, baseUrl: simulator.url });
      const leadingThis = await thisDaemon.lead();
      const held = await runCli(['state', 'migrate', '--from', statePath, '--force'], pgEnv);
      expect(held.code).toBe(1);
      expect(held.stderr).toContain('a daemon that leads it never finishes: stop its daemons first');
      await leadingThis?.release();
      const refused = await runCli(['state', 'migrate', '--from', statePath], pgEnv);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`already holds the state or backups of ${simulator.url}`);
      expect(refused.stderr).not.toContain(other.url);
      const forced = await runCli(['state', 'migrate', '--from', statePath, '--force'], pgEnv);
      expect(forced.code, forced.stderr).toBe(0);

      expect((await runCli(['state', 'show'], otherEnv)).stdout).toBe(before.stdout);
      const restore = await runCli(['restore'], { ...otherEnv, WEBSITES_SYNC_LOG_FORMAT: 'json' });
      expect(restore.stdout).toContain('y.example.com');
      expect((await runCli(['state', 'show'], pgEnv)).stdout).toContain('protected: 1\n    a.example.com');
    } finally {
      await other.close();
    }
  });

  it('out of PostgreSQL while a leader saves: one snapshot, never half of each', async () => {
    const statePath = fileEnv.WEBSITES_SYNC_STATE_FILE as string;
    const original = JSON.parse(await readFile(statePath, 'utf8'));
    const schema = db.schema();
    const pgEnv = { ...fileEnv, WEBSITES_SYNC_STATE: db.stateUrl(schema) };
    expect((await runCli(['state', 'migrate', '--from', statePath], pgEnv)).code).toBe(0);
    // A leader's save of a delete, held until the copy has read the websites: the website's row goes
    // and its backup comes, in one transaction.
    const leader = new pg.Client({ connectionString: db.url });
    await leader.connect();
    const back = join(dir, 'out', 'state.json');
    await mkdir(join(dir, 'out'));
    try {
      await leader.query('BEGIN');
      await leader.query(`LOCK TABLE ${schema}.backups IN ACCESS EXCLUSIVE MODE`);
      const copy = startCli(['state', 'migrate', '--to', back], pgEnv);
      const waiting = async () =>
        (
          await db.query(
            `SELECT 1 FROM pg_locks WHERE relation = '${schema}.backups'::regclass AND NOT granted`,
          )
        ).length;
      await vi.waitFor(async () => expect(await waiting()).toBe(1), { timeout: 20_000, interval: 50 });
      const [row] = (
        await leader.query(`SELECT entry FROM ${schema}.websites WHERE entry->>'domain' = 'b.example.com'`)
      ).rows;
      expect(row).toBeDefined();
      await leader.query(`DELETE FROM ${schema}.websites WHERE entry->>'domain' = 'b.example.com'`);
      await leader.query(
        `INSERT INTO ${schema}.backups (account, deleted_at, entry) SELECT account, deleted_at, entry || '{"domain":"b.example.com"}' FROM ${schema}.backups`,
      );
      await leader.query('COMMIT');
      const done = await copy.done;
      expect(done.code, done.stderr).toBe(0);
    } finally {
      await leader.end();
    }
    // The state before the save, whole: its websites and its one backup, not the backup after it.
    expect(JSON.parse(await readFile(back, 'utf8'))).toEqual(original);
    const backups = await readFile(join(dir, 'out', '.websites-sync-deleted.jsonl'), 'utf8');
    expect(backups.trim().split('\n')).toHaveLength(1);
  });

  it('into a backup file other accounts share: their backups are kept', async () => {
    const target = join(dir, 'shared', 'state.json');
    const backups = join(dir, 'shared', '.websites-sync-deleted.jsonl');
    await mkdir(join(dir, 'shared'));
    const foreign = {
      deleted_at: '2026-11-01T00:00:00.000Z',
      base_url: 'https://other.example.net',
      id: 7,
      domain: 'z.example.com',
      privacy: 0,
      email: false,
      exclude_bots: true,
      exclude_ips: [],
      exclude_params: 'unknown',
      password_set: false,
    };
    await writeFile(backups, `${JSON.stringify(foreign)}\n`);
    const into = await runCli(['state', 'migrate', '--to', target], fileEnv);
    expect(into.code, into.stderr).toBe(0);
    const lines = (await readFile(backups, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual(foreign);
  });
});
