import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// A role with idle_session_timeout (as managed PostgreSQL services set it), against a real server: a
// lock's connection is idle by design (while the run waits on the service, a leader between runs), and
// must not be ended for it.

let db: TestDatabase;
const baseUrl = 'https://stats.example.com';
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A role whose sessions the server ends after a second idle, and a state URL of a new schema as it. */
async function idleTimedRole(): Promise<string> {
  const schema = db.schema();
  const role = `${schema}_idle`;
  await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'idle-secret-9'`);
  await db.query(`GRANT CREATE ON DATABASE ${new URL(db.url).pathname.slice(1)} TO ${role}`);
  await db.query(`ALTER ROLE ${role} SET idle_session_timeout = '1s'`);
  return db.stateUrl(schema, { user: role, password: 'idle-secret-9' });
}

describe.skipIf(skipWithoutDatabase)('a role with idle_session_timeout', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it('a leader idle between its runs keeps its leadership, and its run lock while the run waits', async () => {
    const store = await openStateStore({ location: await idleTimedRole(), baseUrl, heartbeatMs: 500 });
    const leadership = await store.lead();
    expect(leadership).toBeDefined();
    await pause(2_500);
    expect(leadership?.lost.aborted).toBe(false);
    const run = await leadership?.lock();
    await pause(2_500);
    expect(run?.lost.aborted).toBe(false);
    await run?.release();
    await leadership?.release();
  });

  it('--once whose run waits on the service longer than the timeout finishes', async () => {
    const simulator: Simulator = await startSimulator();
    try {
      const dir = await mkdtemp(join(tmpdir(), 'websites-sync-idle-'));
      await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
      const { WEBSITES_SYNC_STATE_FILE: _, ...env } = toolEnv(simulator, dir);
      simulator.setFaults({ latencyMs: 1_500 });
      const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_STATE: await idleTimedRole() });
      expect(run.code, run.stderr).toBe(0);
      expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);
    } finally {
      await simulator.close();
    }
  });
});
