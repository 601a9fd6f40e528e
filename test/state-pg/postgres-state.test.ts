import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect as connectTcp, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';

// The PostgreSQL state from the built CLI, against a real server (a throwaway cluster, or
// WEBSITES_SYNC_TEST_DATABASE_URL).

let db: TestDatabase;
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;
let schema: string;

const DOMAINS = [
  'a.example.com',
  'b.example.com',
  'c.example.com',
  'd.example.com',
  'e.example.com',
  'f.example.com',
];
const manifest = (domains: readonly string[]) =>
  `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n    exclude_params: [utm_source]\n`).join('')}`;

const creates = (sim: Simulator) =>
  sim.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/websites');

// One throwaway server for the whole file: both groups below use it (a schema per test keeps them apart).
describe.skipIf(skipWithoutDatabase)('the PostgreSQL backend', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  describe('a PostgreSQL state', () => {
    beforeEach(async () => {
      simulator = await startSimulator();
      dir = await mkdtemp(join(tmpdir(), 'websites-sync-pg-'));
      await writeFile(join(dir, 'websites.yaml'), manifest(DOMAINS));
      schema = db.schema();
      const { WEBSITES_SYNC_STATE_FILE: _, ...rest } = toolEnv(simulator, dir);
      env = { ...rest, WEBSITES_SYNC_STATE: db.stateUrl(schema), WEBSITES_SYNC_LOG_FORMAT: 'json' };
    });
    afterEach(async () => {
      await simulator.close();
    });

    it('holds the state: a second run knows the write-only fields it applied; no file is written; the password is never shown', async () => {
      const first = await runCli(['--once'], env);
      expect(first.code, first.stderr).toBe(0);
      const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
      expect(again.code, again.stdout).toBe(0);
      const rows = await db.query(`SELECT id FROM "${schema}".websites`);
      expect(rows).toHaveLength(DOMAINS.length);
      const { readdir } = await import('node:fs/promises');
      expect(await readdir(dir)).toEqual(['websites.yaml']);
      for (const out of [first, again]) expect(out.stdout + out.stderr).not.toContain(db.password);
    });

    it('a run whose connection goes silent while it holds the lock (a partition): it stops within two heartbeats, writing nothing more', async () => {
      // A proxy before the server: going quiet, it ends its side towards the server (which releases the
      // lock at once, as it would after its keepalives) and leaves the run's side open and silent.
      const target = new URL(db.url);
      const pairs: Array<{ client: Socket; server: Socket }> = [];
      let quiet = false;
      const proxy = createServer((client) => {
        const server = connectTcp(Number(target.port), target.hostname);
        client.on('error', () => {});
        server.on('error', () => {});
        client.on('data', (data) => quiet || server.write(data));
        server.on('data', (data) => quiet || client.write(data));
        pairs.push({ client, server });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const { port } = proxy.address() as { port: number };
      const many = Array.from({ length: 60 }, (_, i) => `p${i}.example.com`);
      await writeFile(join(dir, 'websites.yaml'), manifest(many));
      simulator.setFaults({ latencyMs: 250 });
      const run = startCli(['--once', '--concurrency', '1'], {
        ...env,
        WEBSITES_SYNC_STATE: db.stateUrl(schema).replace(`:${target.port}/`, `:${port}/`),
      });
      try {
        while (creates(simulator).length < 3) await new Promise((next) => setTimeout(next, 50));
        quiet = true;
        for (const pair of pairs) pair.server.destroy();
        const quietAt = Date.now();
        const ended = await run.done;
        // Two heartbeats of 5 s (the second finds the first check unanswered), then the operation in
        // flight and the exit.
        expect(Date.now() - quietAt).toBeLessThan(20_000);
        expect(ended.code).not.toBe(0);
        expect(ended.stderr).toContain('the lock');
        expect(ended.stderr).not.toContain(db.password);
        // Stopped part-way: the rest is left to the next run, which takes the lock now.
        expect(creates(simulator).length).toBeLessThan(many.length);
        const next = await runCli(['--once'], env);
        expect(next.code, next.stderr).toBe(0);
        expect(new Set(simulator.listWebsites().map((w) => w.domain))).toEqual(new Set(many));
      } finally {
        run.child.kill('SIGKILL');
        for (const pair of pairs) pair.client.destroy();
        proxy.close();
      }
    }, 40_000);

    it('two --once runs racing on one account: one waits for the other, and every website is created once', async () => {
      simulator.setFaults({ latencyMs: 30 });
      const [one, two] = await Promise.all([runCli(['--once'], env), runCli(['--once'], env)]);
      for (const run of [one, two]) {
        // Either it ran, or it waited and named who holds the lock.
        if (run.code !== 0)
          expect(run.stderr).toMatch(
            /another run holds the state .*: a run websites-sync --once on host .+ \(pid \d+\) since /,
          );
      }
      expect([one.code, two.code]).toContain(0);
      expect(
        creates(simulator)
          .map((r) => r.body?.domain)
          .sort(),
      ).toEqual(DOMAINS);
    });

    it('a connection cut mid-apply (pg_terminate_backend): the writer stops at once, and the next run finishes without creating anything twice', async () => {
      let cut = false;
      let afterCut = 0;
      simulator.onRequest = async (request) => {
        if (request.method !== 'POST') return;
        if (cut) afterCut++;
        if (creates(simulator).length === 3 && !cut) {
          cut = true;
          await db.query(
            `SELECT pg_terminate_backend(backend_pid, 10000) FROM "${schema}".lock_holders WHERE role = 'run'`,
          );
        }
      };
      // pg_terminate_backend(pid, timeout) returns once the backend is gone: the run's connection is
      // closed before the simulator answers the request in flight.
      const stopped = await runCli(['--once', '--concurrency', '1'], env);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toMatch(
        /connection to postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=\w+ (ended|failed)/,
      );
      expect(stopped.stderr).not.toContain(db.password);
      // The operation in flight when the lock went may finish; none is started after.
      expect(afterCut).toBeLessThanOrEqual(1);
      simulator.onRequest = undefined;
      const next = await runCli(['--once'], env);
      expect(next.code, next.stderr).toBe(0);
      const domains = creates(simulator).map((r) => r.body?.domain);
      expect(domains.sort()).toEqual(DOMAINS);
      const converged = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
      expect(converged.code, converged.stdout).toBe(0);
    });

    it('a delete is backed up in PostgreSQL first, and restore reads it back from there', async () => {
      expect((await runCli(['--once'], env)).code).toBe(0);
      await writeFile(join(dir, 'websites.yaml'), manifest(DOMAINS.slice(1)));
      const pruned = await runCli(['--once', '--prune'], env);
      expect(pruned.code, pruned.stderr).toBe(0);
      const rows = await db.query<{ domain: string }>(
        `SELECT entry->>'domain' AS domain FROM "${schema}".backups`,
      );
      expect(rows).toEqual([{ domain: DOMAINS[0] }]);
      const restored = await runCli(['restore'], env);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toContain(`domain: ${DOMAINS[0]}`);
      expect(restored.stderr).toContain('the backups table of postgres://127.0.0.1:');
      expect(restored.stderr + restored.stdout).not.toContain(db.password);
    });

    it('a first run that deletes says the database holds no state for the account, not that a file is missing', async () => {
      simulator.createWebsite({ domain: 'old.example.com' });
      const run = await runCli(['--once', '--dry-run', '--prune', '-o', 'json'], env);
      expect(run.code, run.stderr).toBe(0);
      const plan = JSON.parse(run.stdout) as { warnings: string[] };
      const warning = plan.warnings.find((w) =>
        w.includes('protections recorded by earlier runs are unknown'),
      );
      expect(warning).toMatch(/^no state for this account in PostgreSQL at postgres:\/\/.*\?schema=/);
      expect(warning).toContain('point --state at it');
      expect(run.stderr).not.toContain('no state file');
      expect(`${run.stdout}${run.stderr}`).not.toContain(db.password);
    });

    it('--notify-url: a situation that stands run after run is told once, the memory kept in the schema', async () => {
      const receiver = await startReceiver({ setAside: ['warnings'] });
      try {
        simulator.createWebsite({ domain: 'gone.example.com' });
        await writeFile(join(dir, 'websites.yaml'), `prune: true\ndelete_delay: 24h\n${manifest(DOMAINS)}`);
        const notifying = { ...env, WEBSITES_SYNC_NOTIFY_URL: receiver.url };
        for (let run = 0; run < 3; run++) {
          const result = await runCli(['--once'], notifying);
          expect(result.code, result.stderr).toBe(0);
        }
        expect(receiver.received.map((e) => e.event)).toEqual(['delete_scheduled']);
        const rows = await db.query(`SELECT account FROM "${schema}".notified`);
        expect(rows).toHaveLength(1);
        expect(readdirSync(dir).filter((name) => name.includes('notified'))).toEqual([]);
      } finally {
        await receiver.close();
      }
    });

    it('a schema made before the notified table gains it at the same version (an earlier websites-sync still takes it), its state kept', async () => {
      expect((await runCli(['--once'], env)).code).toBe(0);
      await db.query(`DROP TABLE "${schema}".notified`);
      const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
      // Nothing to resend: the write-only fields the first run applied are still known.
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(await db.query(`SELECT version FROM "${schema}".schema_version`)).toEqual([{ version: 1 }]);
      expect(await db.query(`SELECT * FROM "${schema}".notified`)).toEqual([]);
    });

    it('state show names the holder of the lock while a run holds it', async () => {
      let shown = '';
      simulator.onRequest = async (request) => {
        if (request.method === 'POST' && shown === '') {
          shown = (await runCli(['state', 'show'], env)).stdout;
        }
      };
      const run = await runCli(['--once'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(shown).toMatch(
        /Lock: held by websites-sync --once on host .+ \(pid \d+\) since (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC/,
      );
      expect(shown).not.toContain(db.password);
      const after = await runCli(['state', 'show'], env);
      expect(after.stdout).toContain('Lock: free');
      expect(after.stdout).toContain(`websites with recorded write-only fields: ${DOMAINS.length}`);
    });
  });

  describe('a PostgreSQL state that cannot be used: a clear error, nothing changed', () => {
    beforeEach(async () => {
      simulator = await startSimulator();
      dir = await mkdtemp(join(tmpdir(), 'websites-sync-pg-'));
      await writeFile(join(dir, 'websites.yaml'), manifest(DOMAINS));
      const { WEBSITES_SYNC_STATE_FILE: _, ...rest } = toolEnv(simulator, dir);
      env = rest;
    });
    afterEach(async () => {
      await simulator.close();
    });

    const writes = () => simulator.requests.filter((r) => r.method !== 'GET');

    it('wrong credentials', async () => {
      const url = db.stateUrl(db.schema(), { user: new URL(db.url).username, password: 'not-the-password' });
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('refused the credentials');
      expect(run.stderr).not.toContain('not-the-password');
      expect(writes()).toEqual([]);
    });

    it('an unreachable server', async () => {
      const url = db.stateUrl(db.schema()).replace(/:\d+\//, ':1/');
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: url });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/postgres\?schema=\w+ \(ECONNREFUSED\)/,
      );
      expect(run.stderr).not.toContain(db.password);
      expect(writes()).toEqual([]);
    });

    it('a user without the privilege to create the schema', async () => {
      const schema = db.schema();
      await db.query(`CREATE ROLE ${schema}_ro LOGIN PASSWORD 'ro-secret-9'`);
      await db.query(`REVOKE CREATE ON DATABASE ${new URL(db.url).pathname.slice(1)} FROM PUBLIC`);
      const url = db.stateUrl(schema, { user: `${schema}_ro`, password: 'ro-secret-9' });
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('missing privileges');
      expect(run.stderr).not.toContain('ro-secret-9');
      expect(writes()).toEqual([]);
    });

    it("a role that may use the tool's tables but not create one: it runs as before the notified table", async () => {
      const schema = db.schema();
      const made = await runCli(['--once', '--dry-run'], {
        ...env,
        WEBSITES_SYNC_STATE: db.stateUrl(schema),
      });
      expect(made.code, made.stderr).toBe(0);
      await db.query(`DROP TABLE "${schema}".notified`);
      const role = `${schema}_rw`;
      await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'rw-secret-9'`);
      await db.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
      await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
      await db.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA "${schema}" TO ${role}`);
      const url = db.stateUrl(schema, { user: role, password: 'rw-secret-9' });
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: url });
      expect(run.code, run.stderr).toBe(0);
      expect(writes().length).toBeGreaterThan(0);
    });

    it('a schema written by a newer websites-sync', async () => {
      const schema = db.schema();
      await db.query(`CREATE SCHEMA ${schema}`);
      await db.query(`CREATE TABLE ${schema}.schema_version (version integer NOT NULL)`);
      await db.query(`INSERT INTO ${schema}.schema_version VALUES (99)`);
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: db.stateUrl(schema) });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `the PostgreSQL schema "${schema}" is at version 99, written by a newer websites-sync`,
      );
      expect(await db.query(`SELECT to_regclass('${schema}.accounts') AS t`)).toEqual([{ t: null }]);
      expect(writes()).toEqual([]);
    });

    it("a schema whose schema_version is another tool's (Flyway's, in a shared schema): refused, untouched", async () => {
      const schema = db.schema();
      await db.query(`CREATE SCHEMA ${schema}`);
      await db.query(
        `CREATE TABLE ${schema}.schema_version (installed_rank integer PRIMARY KEY, version varchar(50), description varchar(200) NOT NULL, success boolean NOT NULL)`,
      );
      await db.query(
        `INSERT INTO ${schema}.schema_version VALUES (1, '2', 'init', true), (2, '2.1', 'more', true)`,
      );
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: db.stateUrl(schema) });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `the PostgreSQL schema "${schema}" has a table schema_version that websites-sync did not make`,
      );
      expect(run.stderr).not.toContain('newer websites-sync');
      expect(await db.query(`SELECT to_regclass('${schema}.accounts') AS t`)).toEqual([{ t: null }]);
      expect(await db.query(`SELECT count(*)::int AS n FROM ${schema}.schema_version`)).toEqual([{ n: 2 }]);
      expect(writes()).toEqual([]);
    });

    it('a URL with a password on the command line is refused (it would show in ps); from a file it works', async () => {
      const url = db.stateUrl(db.schema());
      const refused = await runCli(['--once', '--state', url], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        '--state: a URL with a password is never accepted on the command line',
      );
      expect(refused.stderr).not.toContain(db.password);
      const file = join(dir, 'state-url');
      await writeFile(file, `${url}\n`);
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE_URL_FILE: file });
      expect(run.code, run.stderr).toBe(0);
      expect(await readFile(file, 'utf8')).toContain(db.password);
    });

    it('two processes creating the schema at once: both start, the schema is made once', async () => {
      const url = db.stateUrl(db.schema());
      const runs = await Promise.all([
        runCli(['--once', '--dry-run'], { ...env, WEBSITES_SYNC_STATE: url }),
        runCli(['--once', '--dry-run'], { ...env, WEBSITES_SYNC_STATE: url }),
        runCli(['--once', '--dry-run'], { ...env, WEBSITES_SYNC_STATE: url }),
      ]);
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
    });

    it('processes that waited for another to create the schema, under a role whose transactions default to repeatable read', async () => {
      const schema = db.schema();
      const role = `${schema}_rr`;
      await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'rr-secret-9'`);
      await db.query(`ALTER ROLE ${role} SET default_transaction_isolation = 'repeatable read'`);
      await db.query(`GRANT CREATE ON DATABASE ${new URL(db.url).pathname.slice(1)} TO ${role}`);
      const url = db.stateUrl(schema, { user: role, password: 'rr-secret-9' });
      // The lock the tool creates a schema under, held here until two runs wait for it.
      const holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`websites-sync migrate ${schema}`]);
        const runs = [1, 2].map(() =>
          startCli(['--once', '--dry-run'], { ...env, WEBSITES_SYNC_STATE: url }),
        );
        const waiting = async () =>
          (await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).length;
        await vi.waitFor(async () => expect(await waiting()).toBe(2), { timeout: 20_000, interval: 100 });
        await holder.query('COMMIT');
        for (const run of runs) {
          const done = await run.done;
          expect(done.code, done.stderr).toBe(0);
        }
      } finally {
        await holder.end();
      }
    });
  });
});
