// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/notify/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type Fixture, manifestText, metricValue, saveByRename, startFixture } from '../daemon/fixture.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { type Receiver, startReceiver as startHook } from '../helpers/receiver.js';

// Notifications (issue 13 §6): a loopback webhook receiver gets one event per distinct event, none
// with a secret, from --once and from the daemon.
const PASSWORD = 'notify-secret-pw-42';
let receiver: Receiver | undefined;
let simulator: Simulator | undefined;
let fixture: Fixture | undefined;
let received: Array<Record<string, unknown>> = [];

async function startReceiver(): Promise<string> {
  receiver = await startHook();
  received = receiver.received;
  return receiver.url;
}

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await simulator?.close();
  simulator = undefined;
  await receiver?.close();
  receiver = undefined;
});

describe('--notify-url with --once', () => {
  it('posts a failed operation and a refusal, with a text field and no secret', async () => {
    const url = await startReceiver();
    simulator = await startSimulator({
      websites: Array.from({ length: 12 }, (_, i) => ({ domain: `old${i}.example.com` })),
      faults: { script: ['none', 'echo-422'] },
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-notify-'));
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: shop.example.com\n    privacy: password\n    password: ${PW}\n',
    );
    const env = { ...toolEnv(simulator, dir), PW: PASSWORD, WEBSITES_SYNC_NOTIFY_URL: url };
    const failed = await runCli(['--once'], env);
    expect(failed.code).toBe(1);
    const refused = await runCli(['--once', '--prune'], env);
    expect(refused.code).toBe(3);
    expect(received.map((e) => e.event)).toEqual(['operation_failed', 'refused']);
    for (const event of received) expect(typeof event.text).toBe('string');
    expect(JSON.stringify(received)).not.toContain(PASSWORD);
    expect(JSON.stringify(received)).not.toContain(simulator.apiKey);
  });

  it('tells a standing situation once across runs, and again when it changes; a dry run remembers nothing', async () => {
    const url = await startReceiver();
    simulator = await startSimulator({
      websites: [{ domain: 'keep.example.com' }, { domain: 'gone.example.com' }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-notify-'));
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\ndelete_delay: 24h\nwebsites:\n  - domain: keep.example.com\n',
    );
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_NOTIFY_URL: url };
    for (let run = 0; run < 3; run++) expect((await runCli(['--once'], env)).code).toBe(0);
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled']);

    simulator!.createWebsite({ domain: 'also-gone.example.com' });
    for (let run = 0; run < 2; run++) expect((await runCli(['--once'], env)).code).toBe(0);
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled', 'delete_scheduled']);
    expect(received[1]?.websites).toHaveLength(2);

    // A dry run tells what the last real run did not, and keeps nothing: the next dry run tells again.
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: keep.example.com\n');
    received.length = 0;
    simulator!.createWebsite({ domain: 'new-unlisted.example.com' });
    for (let run = 0; run < 2; run++) {
      expect((await runCli(['--once', '--dry-run', '--prune', '--delete-delay', '1h'], env)).code).toBe(0);
    }
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled', 'delete_scheduled']);
  });

  it('refuses plain http:// to another host', async () => {
    const run = await runCli(['--once', '--dry-run', '--notify-url', 'http://hooks.example.com/x'], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--notify-url: "http://hooks.example.com/x" must be https://');
  });
});

describe('notifications from the daemon', () => {
  it('tells when the manifest becomes invalid and valid again, once each', async () => {
    const url = await startReceiver();
    const notifier = new Notifier({ url, logger: pino({ level: 'silent' }), redact: (t) => t });
    const good = manifestText([{ domain: 'a.example.com' }]);
    const f = await startFixture({ manifest: good, daemon: { notifier } });
    fixture = f;
    await f.runAfter(0);
    await saveByRename(f.file, `${good}    exlude_bots: false\n`);
    const invalid = await f.runAfter(1);
    f.signals.emit('SIGHUP', 'SIGHUP');
    const again = await f.runAfter(invalid.run);
    await saveByRename(f.file, good);
    await f.runAfter(again.run, (r) => r.result === 'success');
    await notifier.flush();
    expect(received.map((e) => e.event)).toEqual(['manifest_invalid', 'manifest_valid']);
  });
});

describe('notifications from the daemon: one per distinct event', () => {
  const events = () => received.map((e) => e.event).sort();

  it('tells each of several standing situations once, and again only when it changes or comes back', async () => {
    const url = await startReceiver();
    const notifier = new Notifier({ url, logger: pino({ level: 'silent' }), redact: (t) => t });
    const f = await startFixture({
      manifest: [
        'version: 1',
        'prune: true',
        'delete_delay: 1h',
        'websites:',
        '  - domain: stay.example.com',
        '  - domain: seen.example.com',
        '    observe: true',
        '    email: false',
        '  - domain: new.example.com',
        '',
      ].join('\n'),
      simulator: {
        websites: [
          { domain: 'stay.example.com' },
          { domain: 'gone.example.com' },
          { domain: 'seen.example.com', email: true },
        ],
        takenDomains: ['new.example.com'],
      },
      daemon: { notifier },
    });
    fixture = f;
    const sighup = async () => {
      const last = f.runs.at(-1)!.run;
      f.signals.emit('SIGHUP', 'SIGHUP');
      await f.runAfter(last);
      await notifier.flush();
    };
    await f.runAfter(0);
    await notifier.flush();
    // A pending delete, a failed create and observed drift: three events, each told once.
    expect(events()).toEqual(['delete_scheduled', 'drift_observed', 'operation_failed']);
    const observed = received.find((e) => e.event === 'drift_observed');
    expect(observed).toMatchObject({ websites: ['seen.example.com'] });
    expect(observed!.text).toContain('seen.example.com (email)');
    expect(observed).not.toHaveProperty('details');
    const metrics = await (await fetch(f.url('/metrics'))).text();
    expect(metricValue(metrics, 'websites_sync_websites_held_back{kind="observed"}')).toBe(1);
    await sighup();
    await sighup();
    expect(events()).toEqual(['delete_scheduled', 'drift_observed', 'operation_failed']);

    // The observed drift changes: told again, the rest stays quiet.
    const seen = f.sim.listWebsites().find((w) => w.domain === 'seen.example.com')!;
    f.sim.updateWebsite(seen.id, { privacy: 0 });
    await sighup();
    expect(events()).toEqual(['delete_scheduled', 'drift_observed', 'drift_observed', 'operation_failed']);
    expect(received.at(-1)!.text).toContain('seen.example.com (privacy, email)');

    // It ends, then the same drift comes back: a new occurrence, told again.
    f.sim.updateWebsite(seen.id, { privacy: 1, email: false });
    await sighup();
    expect(received).toHaveLength(4);
    f.sim.updateWebsite(seen.id, { privacy: 0, email: true });
    await sighup();
    expect(received.map((e) => e.event).slice(4)).toEqual(['drift_observed']);
  });

  it('tells as corrected drift only the operations that succeeded', async () => {
    const url = await startReceiver();
    const notifier = new Notifier({ url, logger: pino({ level: 'silent' }), redact: (t) => t });
    const f = await startFixture({
      manifest: manifestText([
        { domain: 'a.example.com', privacy: 'public' },
        { domain: 'b.example.com', privacy: 'public' },
      ]),
      daemon: { notifier },
    });
    fixture = f;
    await f.runAfter(0);
    const [a, b] = f.sim.listWebsites();
    // Every correction of a.example.com is refused by the service.
    f.sim.onRequest = (req) => {
      if (req.method === 'PATCH' && req.path.endsWith(`/${a!.id}`)) f.sim.setFaults({ script: ['echo-422'] });
    };
    f.sim.updateWebsite(a!.id, { privacy: 1 });
    f.sim.updateWebsite(b!.id, { privacy: 1 });
    f.signals.emit('SIGHUP', 'SIGHUP');
    const both = await f.runAfter(1);
    expect(both.outcomes.map((o) => `${o.domain} ${o.result}`).sort()).toEqual([
      'a.example.com failed',
      'b.example.com updated',
    ]);
    await notifier.flush();
    expect(received.map((e) => [e.event, e.websites])).toEqual([
      ['operation_failed', ['a.example.com']],
      ['drift_corrected', ['update b.example.com']],
    ]);

    // Only the failing correction is left, and it fails again: no drift was corrected.
    f.sim.updateWebsite(b!.id, { privacy: 0 });
    f.signals.emit('SIGHUP', 'SIGHUP');
    const failed = await f.runAfter(both.run);
    expect(failed.outcomes.map((o) => `${o.domain} ${o.result}`)).toEqual(['a.example.com failed']);
    await notifier.flush();
    expect(received.filter((e) => e.event === 'drift_corrected')).toHaveLength(1);
  });
});
