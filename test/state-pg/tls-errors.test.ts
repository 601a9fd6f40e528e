import { execFileSync } from 'node:child_process';
import { chownSync, writeFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { TLS_CERT, TLS_KEY } from '../helpers/tls-fixture.js';

// The URL's TLS parameters and the TLS handshake, against a real server: each failure names the state
// (without its password) and the TLS cause, never "internal error" nor "check the host and port".

let db: TestDatabase;
let simulator: Simulator;
let env: Record<string, string>;

/** The state URL of a new schema with these parameters added. */
function urlWith(parameters: Record<string, string>): string {
  const url = new URL(db.stateUrl(db.schema()));
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.href;
}

async function once(url: string) {
  const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: url });
  expect(run.code).toBe(1);
  expect(run.stderr).not.toContain('internal error');
  expect(run.stderr).not.toContain(db.password);
  expect(run.stderr).not.toContain('check that the host and port');
  expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  return run.stderr;
}

/** TLS on the throwaway cluster, with the fixture's self-signed certificate (a reload takes it). */
async function enableTls(): Promise<void> {
  const [row] = await db.query<{ data_directory: string }>('SHOW data_directory');
  const data = row?.data_directory ?? '';
  for (const [name, text] of [
    ['server.crt', TLS_CERT],
    ['server.key', TLS_KEY],
  ] as const) {
    writeFileSync(join(data, name), text, { mode: 0o600 });
    if (process.getuid?.() === 0) {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
      chownSync(join(data, name), id('-u'), id('-g'));
    }
  }
  await db.query('ALTER SYSTEM SET ssl = on');
  await db.query('SELECT pg_reload_conf()');
}

const STATE = String.raw`PostgreSQL at postgres://127\.0\.0\.1:\d+/postgres\?\S*schema=\w+`;

describe.skipIf(skipWithoutDatabase)("a PostgreSQL state's TLS that cannot be used", () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  beforeEach(async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-tls-'));
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const { WEBSITES_SYNC_STATE_FILE: _, ...rest } = toolEnv(simulator, dir);
    env = rest;
  });
  afterEach(async () => {
    await simulator.close();
  });

  it('an sslrootcert that cannot be read: the state, the option and the file are named', async () => {
    const stderr = await once(urlWith({ sslmode: 'verify-full', sslrootcert: '/nonexistent' }));
    expect(stderr).toMatch(
      new RegExp(
        `${STATE}: cannot read /nonexistent, the URL's sslrootcert \\(ENOENT: no such file or directory\\)`,
      ),
    );
  });

  it('sslmode=require on a server without TLS: said as such', async () => {
    const stderr = await once(urlWith({ sslmode: 'require' }));
    expect(stderr).toMatch(new RegExp(`${STATE} takes no TLS connection .*enable TLS on the server`));
  });

  it.skipIf(process.env.WEBSITES_SYNC_TEST_DATABASE_URL !== undefined)(
    'a server certificate that cannot be verified: the TLS cause and what to check',
    async () => {
      await enableTls();
      await vi.waitFor(
        async () => {
          const stderr = await once(urlWith({ sslmode: 'verify-full' }));
          expect(stderr).toMatch(
            new RegExp(`${STATE}: TLS failed \\(self[- ]signed certificate.*; check sslmode, sslrootcert`),
          );
        },
        { timeout: 10_000, interval: 200 },
      );
    },
  );
});
