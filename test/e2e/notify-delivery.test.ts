import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/notify/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type Fixture, startFixture } from '../daemon/fixture.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

// Notifications are remembered only once delivered: an event the webhook did not take (unreachable,
// 5xx on every try, a 4xx) is told again by the next run, and never sent twice within one run.
let receiver: Receiver | undefined;
let simulator: Simulator | undefined;
let fixture: Fixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await simulator?.close();
  simulator = undefined;
  await receiver?.close();
  receiver = undefined;
});

const PENDING = 'version: 1\nprune: true\ndelete_delay: 24h\nwebsites:\n  - domain: keep.example.com\n';
const events = (list: Array<Record<string, unknown>>) => list.map((e) => e.event);

describe('--once remembers an event only once the webhook took it', () => {
  it('tells again after an unreachable receiver, a 5xx and a 4xx; then once', async () => {
    const hook = await startReceiver();
    receiver = hook;
    simulator = await startSimulator({
      websites: [{ domain: 'keep.example.com' }, { domain: 'gone.example.com' }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-notify-'));
    await writeFile(join(dir, 'websites.yaml'), PENDING);
    const env = toolEnv(simulator, dir);
    // Nothing listens on port 1: the event is not delivered, and the run still succeeds.
    const unreachable = await runCli(['--once', '--notify-url', 'http://127.0.0.1:1/h'], env);
    expect(unreachable.code).toBe(0);

    const run = () => runCli(['--once', '--notify-url', hook.url], env);
    hook.status = 503;
    expect((await run()).code).toBe(0);
    // A 5xx is tried again (3 tries in all); a 4xx would only be the same again: one try.
    expect(events(hook.turnedAway)).toEqual(['delete_scheduled', 'delete_scheduled', 'delete_scheduled']);
    hook.status = 404;
    expect((await run()).code).toBe(0);
    expect(hook.turnedAway).toHaveLength(4);
    expect(hook.received).toEqual([]);

    hook.status = 200;
    for (let i = 0; i < 2; i++) expect((await run()).code).toBe(0);
    expect(events(hook.received)).toEqual(['delete_scheduled']);
    expect(hook.received[0]).toMatchObject({ websites: ['gone.example.com'] });
    expect(unreachable.stderr).toContain('webhook did not take the event; the next run tells it again');
  });
});

describe('the daemon remembers an event only once the webhook took it', () => {
  it('tells on the next run what a failing receiver did not take, and the same event once within a run', async () => {
    // The first run warns that protections are unknown (no state file yet): that `warnings` event is
    // tested in test/daemon/warnings.test.ts.
    const hook = await startReceiver({ setAside: ['warnings'] });
    receiver = hook;
    hook.status = 500;
    const notifier = new Notifier({ url: hook.url, logger: pino({ level: 'silent' }), redact: (t) => t });
    const f = await startFixture({
      manifest: PENDING,
      simulator: { websites: [{ domain: 'keep.example.com' }, { domain: 'gone.example.com' }] },
      daemon: { notifier },
    });
    fixture = f;
    await f.runAfter(0);
    await notifier.flush();
    expect(events(hook.turnedAway)).toEqual(['delete_scheduled', 'delete_scheduled', 'delete_scheduled']);

    hook.status = 200;
    const sighup = async () => {
      await f.resync();
      await notifier.flush();
    };
    await sighup();
    await sighup();
    expect(events(hook.received)).toEqual(['delete_scheduled']);
  });

  it('queues an event on its way only once, delivered or not', async () => {
    const hook = await startReceiver();
    receiver = hook;
    hook.status = 503;
    const notifier = new Notifier({ url: hook.url, logger: pino({ level: 'silent' }), redact: (t) => t });
    const event = { event: 'operation_failed' as const, text: 'x failed', websites: ['x.example.com'] };
    notifier.notify([event]);
    notifier.notify([event]);
    await notifier.flush();
    expect(hook.turnedAway).toHaveLength(3);
    expect(notifier.sent()).toEqual({});
    hook.status = 200;
    notifier.notify([event]);
    notifier.notify([event]);
    await notifier.flush();
    notifier.notify([event]);
    await notifier.flush();
    expect(events(hook.received)).toEqual(['operation_failed']);
  });
});

describe('a memory read from elsewhere (a new leader reads what the last one delivered)', () => {
  const event = { event: 'operation_failed' as const, text: 'x failed', websites: ['x.example.com'] };
  const silent = pino({ level: 'silent' });

  it('is what events queued while it loads are compared with, not what it replaces', async () => {
    const hook = await startReceiver();
    receiver = hook;
    const notifier = new Notifier({ url: hook.url, logger: silent, redact: (t) => t });
    notifier.notify([event]);
    await notifier.flush();
    // The memory kept elsewhere says nothing was delivered (another leader saw the situation end).
    notifier.remember(async () => ({}));
    notifier.notify([event]);
    await notifier.flush();
    expect(events(hook.received)).toEqual(['operation_failed', 'operation_failed']);
  });

  it('is read in its turn, after the deliveries queued before it were kept', async () => {
    const hook = await startReceiver();
    receiver = hook;
    let kept: Record<string, string> = {};
    const notifier = new Notifier({
      url: hook.url,
      logger: silent,
      redact: (t) => t,
      onMemory: (sent) => {
        kept = sent;
      },
    });
    // Asked for while the first delivery is on its way: read once it was kept, not before.
    notifier.notify([event]);
    notifier.remember(async () => kept);
    await notifier.flush();
    notifier.notify([event]);
    await notifier.flush();
    expect(events(hook.received)).toEqual(['operation_failed']);
  });
});
