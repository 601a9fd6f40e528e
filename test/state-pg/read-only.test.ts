import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli, type StartedCli, startCli, toolEnv } from '../helpers/cli.js';
import {
  skipWithoutDatabase,
  startTestDatabase,
  type TestDatabase,
  untilLogged,
} from '../helpers/postgres.js';

// A database that takes no write (a replica; a role with default_transaction_read_only), against a real
// server: an error that says so and what to do, never "another daemon leads this account".

let db: TestDatabase;
let simulator: Simulator;
let env: Record<string, string>;
const started: StartedCli[] = [];
const baseUrl = 'https://stats.example.com';
const READ_ONLY =
  /PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=\w+ is read-only \(cannot execute INSERT in a read-only transaction\): .*point --state at the primary, or use a role that may write/;

/** A schema the tool made, and a role that may read and write its tables, as its state URL. */
async function roleOnSchema(readOnly: boolean): Promise<{ url: string; role: string }> {
  const schema = db.schema();
  await (await openStateStore({ location: db.stateUrl(schema), baseUrl })).close();
  const role = `${schema}_user`;
  await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'ro-secret-9'`);
  await db.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
  await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
  await db.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA "${schema}" TO ${role}`);
  if (readOnly) await db.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
  return { url: db.stateUrl(schema, { user: role, password: 'ro-secret-9' }), role };
}

describe.skipIf(skipWithoutDatabase)('a read-only PostgreSQL state', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  beforeEach(async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-read-only-'));
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const { WEBSITES_SYNC_STATE_FILE: _, ...rest } = toolEnv(simulator, dir);
    env = { ...rest, WEBSITES_SYNC_LOG_FORMAT: 'json' };
  });
  afterEach(async () => {
    for (const cli of started.splice(0)) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    await simulator.close();
  });

  it('electing a leader there is an error naming it, not a standby behind no leader', async () => {
    const { url } = await roleOnSchema(true);
    const store = await openStateStore({ location: url, baseUrl });
    await expect(store.lead()).rejects.toThrow(READ_ONLY);
    // Nothing kept on the server: the leader lock taken before the refused write was released.
    expect(await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted`)).toEqual([]);
  });

  it('--once says so, and what to do; a daemon stops at its start saying so', async () => {
    const { url } = await roleOnSchema(true);
    const once = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: url });
    expect(once.code).toBe(1);
    expect(once.stderr).toMatch(READ_ONLY);
    expect(once.stderr).not.toContain('internal error');
    expect(once.stderr).not.toContain('ro-secret-9');
    const daemon = await runCli(['--listen', '127.0.0.1:0'], { ...env, WEBSITES_SYNC_STATE: url });
    expect(daemon.code).toBe(1);
    expect(daemon.stderr).toMatch(READ_ONLY);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a leader whose database turns read-only (a failover to a replica): an error, and /readyz not ready', async () => {
    const { url, role } = await roleOnSchema(false);
    const cli = startCli(['--listen', '127.0.0.1:0', '--leader-poll', '500ms'], {
      ...env,
      WEBSITES_SYNC_STATE: url,
    });
    started.push(cli);
    const health = (await untilLogged(cli, /"url":"(http:\/\/[^"]+)"/))[1] as string;
    await untilLogged(cli, /"msg":"run success"/);
    await db.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    await untilLogged(cli, /"level":50[^\n]*is read-only[^\n]*"msg":"cannot use the state to elect a leader/);
    await vi.waitFor(
      async () => {
        const ready = await fetch(`${health}/readyz`);
        expect(ready.status).toBe(503);
        expect(await ready.text()).toMatch(/^cannot use the state: .*is read-only/);
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(cli.output().stderr).not.toContain('ro-secret-9');
  });
});
