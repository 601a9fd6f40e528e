import type { Client } from 'pg';
import type { BackupEntry } from '../backup-file.js';
import { type Notified, notifiedOf } from '../notified.js';
import { byId, emptyState, fingerprintKey, STATE_VERSION, type StateData } from '../state.js';
import type { StoreContents, StoredState } from '../store-types.js';
import { quoted } from './location.js';

// The state as rows: an account (its salt), and per website id its fingerprints, its protection, its
// pending delete; a backup per deleted website. A save writes only the rows that changed since the
// state was read or last saved, in one transaction: a connection cut mid-save leaves the last save.

const TABLES = {
  websites: 'websites',
  protected: 'protections',
  pending_deletes: 'pending_deletes',
} as const;
type Part = keyof typeof TABLES;
const PARTS = Object.keys(TABLES) as Part[];

/** What was last read or written, per part and id, as JSON: the next save writes only the difference. */
export type Written = Record<Part, Map<string, string>>;

export function nothingWritten(): Written {
  return { websites: new Map(), protected: new Map(), pending_deletes: new Map() };
}

/** The account's state, or undefined when it has none yet. */
export async function readAccount(
  client: Client,
  schema: string,
  account: string,
): Promise<StoredState | undefined> {
  const s = quoted(schema);
  const head = await client.query<{ base_url: string; salt: string }>(
    `SELECT base_url, salt FROM ${s}.accounts WHERE account = $1`,
    [account],
  );
  const row = head.rows[0];
  if (!row) return undefined;
  const stored: StoredState = {
    version: STATE_VERSION,
    base_url: row.base_url,
    salt: row.salt,
    websites: byId(),
  };
  for (const part of PARTS) {
    const rows = await client.query<{ id: string; entry: never }>(
      `SELECT id, entry FROM ${s}.${TABLES[part]} WHERE account = $1`,
      [account],
    );
    if (rows.rows.length === 0) continue;
    const entries = byId<never>();
    for (const { id, entry } of rows.rows) entries[id] = entry;
    stored[part] = entries;
  }
  return stored;
}

/** The state for a run: the account's, keyed with this run's secret, or a new one. */
export function stateOf(stored: StoredState | undefined, baseUrl: string, secret: string): StateData {
  if (!stored) return emptyState(baseUrl, secret);
  return { ...stored, key: fingerprintKey(secret, stored.salt) };
}

export function writtenOf(state: StoredState): Written {
  const written = nothingWritten();
  for (const part of PARTS) {
    for (const [id, entry] of Object.entries(state[part] ?? {})) written[part].set(id, JSON.stringify(entry));
  }
  return written;
}

/** Writes what changed since `written` (updated in place once committed). */
export async function saveAccount(
  client: Client,
  schema: string,
  account: string,
  state: StoredState,
  written: Written,
): Promise<void> {
  const now = writtenOf(state);
  await inTransaction(client, () => writeAccount(client, schema, account, state, { before: written, now }));
  for (const part of PARTS) written[part] = now[part];
}

async function writeAccount(
  client: Client,
  schema: string,
  account: string,
  state: StoredState,
  diff: { before: Written; now: Written },
) {
  const s = quoted(schema);
  await client.query(
    `INSERT INTO ${s}.accounts (account, base_url, salt) VALUES ($1, $2, $3)
     ON CONFLICT (account) DO UPDATE SET salt = $3, updated_at = now()`,
    [account, state.base_url, state.salt],
  );
  for (const part of PARTS)
    await savePart(client, `${s}.${TABLES[part]}`, account, diff.before[part], diff.now[part]);
}

/** One transaction: a connection cut half-way leaves what was there before, never half of it. */
export async function inTransaction<T>(client: Client, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  await client.query(begin);
  try {
    const done = await work();
    await client.query('COMMIT');
    return done;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function savePart(
  client: Client,
  table: string,
  account: string,
  before: Map<string, string>,
  after: Map<string, string>,
) {
  const gone = [...before.keys()].filter((id) => !after.has(id));
  // Ids are opaque strings: one spelled `__proto__` must be a key like any other (byId).
  const changed = byId<unknown>();
  for (const [id, json] of after) if (before.get(id) !== json) changed[id] = JSON.parse(json);
  if (gone.length > 0)
    await client.query(`DELETE FROM ${table} WHERE account = $1 AND id = ANY($2)`, [account, gone]);
  if (Object.keys(changed).length === 0) return;
  await client.query(
    `INSERT INTO ${table} (account, id, entry) SELECT $1, key, value FROM jsonb_each($2::jsonb)
     ON CONFLICT (account, id) DO UPDATE SET entry = excluded.entry`,
    [account, JSON.stringify(changed)],
  );
}

export async function insertBackup(
  client: Client,
  schema: string,
  account: string,
  entry: BackupEntry,
): Promise<void> {
  await client.query(
    `INSERT INTO ${quoted(schema)}.backups (account, deleted_at, entry) VALUES ($1, $2, $3)`,
    [account, entry.deleted_at, JSON.stringify(entry)],
  );
}

/** Oldest first, every account's (restore matches them by base URL and domain). */
export async function readBackupRows(client: Client, schema: string): Promise<BackupEntry[]> {
  const rows = await client.query<{ entry: BackupEntry }>(
    `SELECT entry FROM ${quoted(schema)}.backups ORDER BY seq`,
  );
  return rows.rows.map((row) => row.entry);
}

export async function readAccounts(client: Client, schema: string): Promise<string[]> {
  const rows = await client.query<{ account: string }>(
    `SELECT account FROM ${quoted(schema)}.accounts ORDER BY account`,
  );
  return rows.rows.map((row) => row.account);
}

/**
 * Every account's state and every backup, as of one moment: a leader's save between two of the reads
 * (a website's row gone, its backup added) would otherwise give a copy half of each.
 */
export function readContents(client: Client, schema: string): Promise<StoreContents> {
  return inTransaction(
    client,
    async () => {
      const states = [];
      for (const account of await readAccounts(client, schema)) {
        const stored = await readAccount(client, schema, account);
        if (stored) states.push(stored);
      }
      return { states, backups: await readBackupRows(client, schema) };
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
}

/**
 * The state and backups of `accounts` go (the other accounts of the schema stay); then `states` and
 * `backups` (of those accounts) are written. One transaction.
 */
export async function replaceAccounts(
  client: Client,
  schema: string,
  accounts: string[],
  contents: {
    states: Array<{ account: string; state: StoredState }>;
    backups: Array<{ account: string; entry: BackupEntry }>;
  },
): Promise<void> {
  const s = quoted(schema);
  await inTransaction(client, async () => {
    await client.query(`DELETE FROM ${s}.accounts WHERE account = ANY($1)`, [accounts]);
    await client.query(`DELETE FROM ${s}.backups WHERE account = ANY($1)`, [accounts]);
    for (const { account, state } of contents.states) {
      await writeAccount(client, schema, account, state, { before: nothingWritten(), now: writtenOf(state) });
    }
    for (const { account, entry } of contents.backups) await insertBackup(client, schema, account, entry);
  });
}

/** What the webhook took last for the account; nothing when none was kept. */
export async function readNotifiedRow(client: Client, schema: string, account: string): Promise<Notified> {
  const { rows } = await client.query<{ sent: unknown }>(
    `SELECT sent FROM ${quoted(schema)}.notified WHERE account = $1`,
    [account],
  );
  return notifiedOf(rows[0]?.sent);
}

export async function writeNotifiedRow(client: Client, schema: string, account: string, sent: Notified) {
  await client.query(
    `INSERT INTO ${quoted(schema)}.notified (account, sent) VALUES ($1, $2)
     ON CONFLICT (account) DO UPDATE SET sent = EXCLUDED.sent, updated_at = now()`,
    [account, JSON.stringify(sent)],
  );
}
