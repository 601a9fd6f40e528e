import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, type StartedCli, startCli, toolEnv } from '../helpers/cli.js';
import {
  skipWithoutDatabase,
  startTestDatabase,
  type TestDatabase,
  untilLogged,
} from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';

// Daemon replicas on one PostgreSQL state: one leader, standbys that take over, against a real server.

let db: TestDatabase;
let simulator: Simulator;
let env: Record<string, string>;
const started: StartedCli[] = [];

const DOMAINS = Array.from({ length: 10 }, (_, i) => `site${i}.example.com`);
const ARGS = ['--listen', '127.0.0.1:0', '--leader-poll', '500ms', '--concurrency', '1'];
const creates = () => simulator.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/websites');

function daemon(): StartedCli {
  const cli = startCli(ARGS, env);
  started.push(cli);
  return cli;
}

const schemaOf = (vars: Record<string, string>) =>
  new URL(vars.WEBSITES_SYNC_STATE as string).searchParams.get('schema');

async function healthUrl(cli: StartedCli): Promise<string> {
  return (await untilLogged(cli, /"url":"(http:\/\/[^"]+)"/))[1] as string;
}

describe.skipIf(skipWithoutDatabase)('daemon replicas with a PostgreSQL state', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  beforeEach(async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-replicas-'));
    await writeFile(
      join(dir, 'websites.yaml'),
      `version: 1\nwebsites:\n${DOMAINS.map((d) => `  - domain: ${d}\n`).join('')}`,
    );
    const { WEBSITES_SYNC_STATE_FILE: _, ...rest } = toolEnv(simulator, dir);
    env = { ...rest, WEBSITES_SYNC_STATE: db.stateUrl(db.schema()), WEBSITES_SYNC_LOG_FORMAT: 'json' };
  });
  afterEach(async () => {
    for (const cli of started.splice(0)) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    await simulator.close();
  });

  it('kill -9 of the leader mid-apply: the standby says so on /readyz, takes over within the poll, and applies nothing twice', async () => {
    // The leader's fourth create waits until the standby is checked; then the leader is killed.
    let standbyChecked: () => void = () => {};
    const checked = new Promise<void>((resolve) => {
      standbyChecked = resolve;
    });
    let killedAt = 0;
    const killed = new Promise<void>((resolve) => {
      simulator.onRequest = async (request) => {
        if (request.method === 'POST' && creates().length === 4 && killedAt === 0) {
          killedAt = -1;
          await checked;
          leader.child.kill('SIGKILL');
          killedAt = Date.now();
          resolve();
        }
      };
    });
    const leader = daemon();
    await untilLogged(leader, /"msg":"leading/);
    const standby = daemon();
    const url = await healthUrl(standby);
    await untilLogged(standby, /"msg":"standby: another daemon leads/);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toMatch(/^standby/);
    expect((await fetch(`${url}/readyz?standby=unready`)).status).toBe(503);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^websites_sync_leader 0$/m);
    standbyChecked();
    await killed;
    await untilLogged(standby, /"msg":"leading/);
    // The server releases a killed process's lock at once; the standby tries every 500 ms.
    // (Bounded generously for a loaded machine: a lock kept until TCP keepalive ends would take minutes.)
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    await untilLogged(standby, /"msg":"run success"/);
    expect(
      creates()
        .map((r) => r.body?.domain)
        .sort(),
    ).toEqual([...DOMAINS].sort());
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^websites_sync_leader 1$/m);
  });

  it("the leader's connection cut mid-apply (pg_terminate_backend): it stops at once, and the next leader finishes", async () => {
    let standbyChecked: () => void = () => {};
    const checked = new Promise<void>((resolve) => {
      standbyChecked = resolve;
    });
    let cutting = false;
    const cut = new Promise<void>((resolve) => {
      simulator.onRequest = async (request) => {
        if (request.method === 'POST' && creates().length === 3 && !cutting) {
          cutting = true;
          await checked;
          await db.query(
            `SELECT pg_terminate_backend(backend_pid, 10000) FROM ${schemaOf(env)}.lock_holders WHERE role = 'leader'`,
          );
          resolve();
        }
      };
    });
    const leader = daemon();
    await untilLogged(leader, /"msg":"leading/);
    const standby = daemon();
    await untilLogged(standby, /"msg":"standby/);
    standbyChecked();
    await cut;
    await untilLogged(leader, /"msg":"leadership lost/);
    await untilLogged(leader, /"msg":"run failure/);
    // Whichever takes over first (the standby, or the old leader once its connection is back) finishes.
    await Promise.any([
      untilLogged(standby, /"msg":"run success"/),
      untilLogged(leader, /"msg":"run success"/),
    ]);
    // The create in flight when the connection went finishes; the old leader starts none after it.
    expect(
      creates()
        .map((r) => r.body?.domain)
        .sort(),
    ).toEqual([...DOMAINS].sort());
    expect(leader.output().stderr).not.toContain('pg-test-secret');
  });

  it("a standby's /metrics says whether the manifest is valid, as the leader's does", async () => {
    const leader = daemon();
    await untilLogged(leader, /"msg":"run success"/);
    const standby = daemon();
    const url = await healthUrl(standby);
    await untilLogged(standby, /"msg":"manifest loaded"/);
    const valid = async () =>
      (await (await fetch(`${url}/metrics`)).text()).match(/^websites_sync_manifest_valid (\d)$/m)?.[1];
    expect(await valid()).toBe('1');
    // A broken edit: the alert on websites_sync_manifest_valid == 0 is the standby's too, and only then.
    await writeFile(
      env.WEBSITES_SYNC_MANIFEST as string,
      'version: 1\nwebsites:\n  - domian: x.example.com\n',
    );
    await untilLogged(standby, /"msg":"manifest invalid; nothing from it is applied/);
    expect(await valid()).toBe('0');
  });

  it('a clean shutdown hands leadership over at once; a --once run waits for no leader, only for a run', async () => {
    const first = daemon();
    await untilLogged(first, /"msg":"run success"/);
    const second = daemon();
    await untilLogged(second, /"msg":"standby/);
    // A --once beside a leading daemon: the daemon holds leadership, not the run lock between runs.
    const once = await runCli(['--once'], env);
    expect(once.code, once.stderr).toBe(0);
    first.child.kill('SIGTERM');
    expect((await first.done).code).toBe(0);
    // Within the poll, given a loaded machine's slack; a lock the server kept would take minutes.
    await untilLogged(second, /"msg":"leading/, 10_000);
    await untilLogged(second, /"msg":"run success"/);
    expect(creates()).toHaveLength(DOMAINS.length);
  });
  it('a standby taking over knows what the last leader told the webhook: a standing situation is not told again', async () => {
    const receiver = await startReceiver({ setAside: ['warnings'] });
    try {
      simulator.createWebsite({ domain: 'gone.example.com' });
      await writeFile(
        join(dirname(env.WEBSITES_SYNC_MANIFEST as string), 'websites.yaml'),
        `version: 1\nprune: true\ndelete_delay: 24h\nwebsites:\n${DOMAINS.map((d) => `  - domain: ${d}\n`).join('')}`,
      );
      env = { ...env, WEBSITES_SYNC_NOTIFY_URL: receiver.url };
      // The leader's first run waits until the standby has started (and read what was told: nothing).
      let standbyStarted: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        standbyStarted = resolve;
      });
      simulator.onRequest = () => started;
      const leader = daemon();
      await untilLogged(leader, /"msg":"leading/);
      const standby = daemon();
      await untilLogged(standby, /"msg":"standby: another daemon leads/);
      standbyStarted();
      await untilLogged(leader, /"msg":"run success"/);
      leader.child.kill('SIGTERM');
      expect((await leader.done).code).toBe(0);
      expect(receiver.received.map((e) => e.event)).toEqual(['delete_scheduled']);
      await untilLogged(standby, /"msg":"leading/, 10_000);
      await untilLogged(standby, /"msg":"run success"/);
      standby.child.kill('SIGTERM');
      expect((await standby.done).code).toBe(0);
      expect(receiver.received.map((e) => e.event)).toEqual(['delete_scheduled']);
    } finally {
      await receiver.close();
    }
  });
});
