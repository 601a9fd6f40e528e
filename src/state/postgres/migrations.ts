import type { Client } from 'pg';
import { StateLockError } from '../lock-error.js';
import { quoted } from './location.js';
import { inTransaction } from './rows.js';

// The tool creates and upgrades its own tables. Versioned: each migration runs once, in order, and the
// version is recorded with it in one transaction. Two processes starting at once serialise on an
// advisory transaction lock, so the second finds the work done. A schema of a newer version (written
// by a newer websites-sync) is refused before anything is read or written.

const MIGRATIONS: ReadonlyArray<(schema: string) => string> = [
  (s) => `
    CREATE TABLE ${s}.accounts (
      account text PRIMARY KEY,
      base_url text NOT NULL,
      salt text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE ${s}.websites (
      account text NOT NULL REFERENCES ${s}.accounts ON DELETE CASCADE,
      id text NOT NULL,
      entry jsonb NOT NULL,
      PRIMARY KEY (account, id)
    );
    CREATE TABLE ${s}.protections (
      account text NOT NULL REFERENCES ${s}.accounts ON DELETE CASCADE,
      id text NOT NULL,
      entry jsonb NOT NULL,
      PRIMARY KEY (account, id)
    );
    CREATE TABLE ${s}.pending_deletes (
      account text NOT NULL REFERENCES ${s}.accounts ON DELETE CASCADE,
      id text NOT NULL,
      entry jsonb NOT NULL,
      PRIMARY KEY (account, id)
    );
    CREATE TABLE ${s}.backups (
      seq bigserial PRIMARY KEY,
      account text NOT NULL,
      deleted_at timestamptz NOT NULL,
      entry jsonb NOT NULL
    );
    CREATE TABLE ${s}.lock_holders (
      account text NOT NULL,
      role text NOT NULL,
      host text NOT NULL,
      pid integer NOT NULL,
      command text NOT NULL,
      since timestamptz NOT NULL,
      backend_pid integer NOT NULL,
      PRIMARY KEY (account, role)
    );`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Tables an earlier version neither reads nor needs, added whatever the schema's version: the version
 * (which an earlier websites-sync refuses when it is newer) moves only for a change it could not live
 * with, so a rollback or a replica not yet upgraded keeps working.
 */
const ADDITIONS: ReadonlyArray<{ table: string; create: (schema: string) => string }> = [
  // What the webhook took last, per account (notified.ts): kept by `--once` between invocations.
  {
    table: 'notified',
    create: (s) => `
      CREATE TABLE IF NOT EXISTS ${s}.notified (
        account text PRIMARY KEY,
        sent jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
  },
];

/**
 * Brings the schema to SCHEMA_VERSION with every addition, or says why it cannot; changes nothing on a
 * newer schema.
 */
export async function migrate(client: Client, schema: string): Promise<void> {
  const s = quoted(schema);
  const current = await versionOf(client, schema);
  if (current === SCHEMA_VERSION) return addMissing(client, schema);
  refuseNewer(current, schema);
  await underMigrationLock(client, schema, async () => {
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    const locked = await versionOf(client, schema);
    refuseNewer(locked, schema);
    for (let version = locked + 1; version <= SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version - 1]?.(s) ?? '');
      await client.query(`DELETE FROM ${s}.schema_version`);
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [version]);
    }
    for (const { create } of ADDITIONS) await client.query(create(s));
  });
}

/**
 * One transaction under the lock two processes starting at once serialise on, read committed whatever
 * the role's default: what is read after the lock is what the other committed.
 */
function underMigrationLock(client: Client, schema: string, work: () => Promise<void>): Promise<void> {
  const locked = async () => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`websites-sync migrate ${schema}`]);
    await work();
  };
  return inTransaction(client, locked, 'BEGIN ISOLATION LEVEL READ COMMITTED');
}

/**
 * The additions a schema at the current version lacks. A role that may not create tables in a schema
 * made for it keeps working without them (what they hold is kept nowhere): it worked before they were.
 */
async function addMissing(client: Client, schema: string): Promise<void> {
  if ((await additionsMissing(client, schema)) === 0) return;
  const s = quoted(schema);
  await underMigrationLock(client, schema, async () => {
    for (const { create } of ADDITIONS) await client.query(create(s));
  }).catch((error: unknown) => {
    if ((error as { code?: string }).code !== '42501') throw error;
  });
}

async function additionsMissing(client: Client, schema: string): Promise<number> {
  const names = ADDITIONS.map(({ table }) => `${quoted(schema)}.${table}`);
  const { rows } = await client.query<{ found: string | null }>(
    'SELECT to_regclass(name) AS found FROM unnest($1::text[]) AS name',
    [names],
  );
  return rows.filter((row) => !row.found).length;
}

/** 0 when the schema or its version table does not exist yet. */
async function versionOf(client: Client, schema: string): Promise<number> {
  const table = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [
    `${quoted(schema)}.schema_version`,
  ]);
  if (!table.rows[0]?.found) return 0;
  await refuseForeign(client, schema);
  const row = await client.query<{ version: number }>(
    `SELECT max(version) AS version FROM ${quoted(schema)}.schema_version`,
  );
  return row.rows[0]?.version ?? 0;
}

/**
 * The version table is ours only as ours is made: one integer column, `version`. Another tool's of the
 * same name (Flyway's, in a schema shared with an application) would otherwise read as a newer
 * websites-sync's, or as a version to migrate from.
 */
async function refuseForeign(client: Client, schema: string): Promise<void> {
  const { rows } = await client.query<{ name: string; type: string }>(
    // pg_attribute, not information_schema: a role is shown there only the columns it may use.
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
      WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [`${quoted(schema)}.schema_version`],
  );
  const columns = rows.map(({ name, type }) => `${name} ${type}`);
  if (columns.length === 1 && columns[0] === 'version integer') return;
  throw new StateLockError(
    `the PostgreSQL schema "${schema}" has a table schema_version that websites-sync did not make (its columns: ${columns.join(', ')}): another tool's tables may be there too. Give websites-sync a schema of its own (?schema=NAME in the state URL; the default, websites_sync, is made for it); nothing was changed`,
  );
}

function refuseNewer(version: number, schema: string): void {
  if (version > SCHEMA_VERSION) {
    throw new StateLockError(
      `the PostgreSQL schema "${schema}" is at version ${version}, written by a newer websites-sync; this one knows up to version ${SCHEMA_VERSION}. Upgrade websites-sync; nothing was changed`,
    );
  }
}
