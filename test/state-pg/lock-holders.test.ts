import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalBaseUrl, openStateStore } from '../../src/state/index.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// A lock and the lock_holders row that names its holder go together, against a real server: a row that
// cannot be written or removed never leaves the lock held by nobody's run.

let db: TestDatabase;
const baseUrl = 'https://stats.example.com';

/** Another session holds the holders' table (as the reviewer's `LOCK TABLE … IN EXCLUSIVE MODE`). */
async function holdTable(schema: string): Promise<pg.Client> {
  const blocker = new pg.Client({ connectionString: db.url });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query(`LOCK TABLE "${schema}".lock_holders IN EXCLUSIVE MODE`);
  return blocker;
}

/** The advisory locks the leader's session holds, by the lock_holders row it wrote on leading. */
async function leaderLocks(schema: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
     AND pid = (SELECT backend_pid FROM "${schema}".lock_holders WHERE role = 'leader')`,
  );
  return rows[0]?.n ?? -1;
}

describe.skipIf(skipWithoutDatabase)('a lock and its holder row', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it("a leader's run whose holder row cannot be written keeps no run lock: a --once run takes it after", async () => {
    const schema = db.schema();
    const url = db.stateUrl(schema);
    // A lock timeout of 1 s (the queries' bound caps it), so the write gives up quickly.
    const daemon = await openStateStore({ location: url, baseUrl, queryTimeoutMs: 1_000 });
    const leadership = await daemon.lead();
    expect(leadership).toBeDefined();
    const blocker = await holdTable(schema);
    try {
      await expect(leadership?.lock()).rejects.toThrow(/canceling statement due to (lock|statement) timeout/);
    } finally {
      await blocker.query('COMMIT');
      await blocker.end();
    }
    // Between its runs the leader holds its leadership and nothing else.
    expect(await leaderLocks(schema)).toBe(1);
    const once = await openStateStore({ location: url, baseUrl });
    const session = await once.lock({ waitMs: 0 });
    await session.release();
    await leadership?.release();
  });

  it("a leader's run whose holder row cannot be removed still releases the run lock", async () => {
    const schema = db.schema();
    const url = db.stateUrl(schema);
    const daemon = await openStateStore({ location: url, baseUrl, queryTimeoutMs: 1_000 });
    const leadership = await daemon.lead();
    const run = await leadership?.lock();
    expect(await leaderLocks(schema)).toBe(2);
    const blocker = await holdTable(schema);
    try {
      await run?.release();
    } finally {
      await blocker.query('COMMIT');
      await blocker.end();
    }
    expect(await leaderLocks(schema)).toBe(1);
    expect(leadership?.lost.aborted).toBe(false);
    // Its row names a live session: the next run takes it as left behind, and waits two heartbeats.
    const once = await openStateStore({ location: url, baseUrl, heartbeatMs: 250 });
    const session = await once.lock({ waitMs: 0 });
    await session.release();
    await leadership?.release();
  });

  it("a holder row left by a dead run names nobody once its process id is another session's", async () => {
    const schema = db.schema();
    // Heartbeats of 250 ms: taking the lock after a row left behind waits two of them (next test).
    const store = await openStateStore({ location: db.stateUrl(schema), baseUrl, heartbeatMs: 250 });
    // An unrelated session that started after the dead run wrote its row, with that run's old process
    // id (the server reuses process ids; a row is left when the server, not the run, ended its session).
    const unrelated = new pg.Client({ connectionString: db.url });
    await unrelated.connect();
    try {
      const { rows } = await unrelated.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await db.query(
        `INSERT INTO "${schema}".lock_holders (account, role, host, pid, command, since, backend_pid)
         VALUES ($1, 'run', 'ci-runner-7', 4242, 'websites-sync --once', now() - interval '1 hour', $2)`,
        [canonicalBaseUrl(baseUrl), rows[0]?.pid],
      );
      expect(await store.holders()).toEqual([]);
      // A live holder is still named: the run that takes the lock now rewrites the row.
      const session = await store.lock({ command: 'websites-sync --once' });
      expect((await store.holders()).map((h) => h.command)).toEqual(['websites-sync --once']);
      await session.release();
    } finally {
      await unrelated.end();
    }
  });

  it('a run that takes the lock from a holder who lost its session waits two of its heartbeats first; after a clean release, not', async () => {
    const schema = db.schema();
    const heartbeatMs = 400;
    const store = await openStateStore({ location: db.stateUrl(schema), baseUrl, heartbeatMs });
    // A run whose session the server ended mid-run (a partition): its row stays, its lock is free.
    await db.query(
      `INSERT INTO "${schema}".lock_holders (account, role, host, pid, command, since, backend_pid)
       VALUES ($1, 'run', 'replica-a', 4242, 'websites-sync', now(), 2147483000)`,
      [canonicalBaseUrl(baseUrl)],
    );
    const warnings: string[] = [];
    const started = performance.now();
    const session = await store.lock({ warn: (text) => warnings.push(text) });
    const waited = performance.now() - started;
    expect(warnings).toEqual([
      'the run that held the lock before lost its PostgreSQL session without releasing it; waiting 0.8 s (two of its heartbeats, --leader-poll) for it to stop before this run starts',
    ]);
    expect(waited).toBeGreaterThanOrEqual(2 * heartbeatMs);
    await session.release();
    // Released as it should be: the next run starts at once, with nothing to say.
    const next: string[] = [];
    const again = await store.lock({ warn: (text) => next.push(text) });
    expect(next).toEqual([]);
    await again.release();
  });
});
