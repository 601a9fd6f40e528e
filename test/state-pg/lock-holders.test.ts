import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
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
    const once = await openStateStore({ location: url, baseUrl });
    const session = await once.lock({ waitMs: 0 });
    await session.release();
    await leadership?.release();
  });
});
