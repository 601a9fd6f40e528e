// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/notify/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type Fixture, manifestText, metricValue, saveByRename, startFixture } from '../daemon/fixture.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';
import { untilLogged } from '../helpers/postgres.js';
import { type Receiver, startReceiver as startHook } from '../helpers/receiver.js';

// Notifications (issue 13 §6): a loopback webhook receiver gets one event per distinct event, none
// with a secret, from --once and from the daemon.
const PASSWORD = 'notify-secret-pw-42';
let receiver: Receiver | undefined;
let simulator: Simulator | undefined;
let fixture: Fixture | undefined;
let received: Array<Record<string, unknown>> = [];

async function startReceiver(): Promise<string> {
  // A first run that deletes warns that protections are unknown (no state file yet): the `warnings`
  // event it brings is tested in test/daemon/warnings.test.ts; these tests are about the other kinds.
  receiver = await startHook({ setAside: ['warnings'] });
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

/**
 * A standing situation: gone.example.com is on the account, not in a pruning manifest, and its delete
 * waits 24 h (delete_scheduled). The CLI's environment for it (the receiver's URL in it), and its folder.
 */
async function standingDelete(): Promise<{ env: Record<string, string>; dir: string }> {
  const url = await startReceiver();
  simulator = await startSimulator({
    websites: [{ domain: 'keep.example.com' }, { domain: 'gone.example.com' }],
  });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-notify-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    'version: 1\nprune: true\ndelete_delay: 24h\nwebsites:\n  - domain: keep.example.com\n',
  );
  return { env: { ...toolEnv(simulator, dir), WEBSITES_SYNC_NOTIFY_URL: url }, dir };
}

describe('--notify-url with the daemon, restarted', () => {
  it('a standing situation told before the restart is not told again by the next process', async () => {
    const { env } = await standingDelete();
    for (let start = 0; start < 2; start++) {
      const daemon = startCli([], env);
      try {
        await untilLogged(daemon, /"msg":"run success"/);
      } finally {
        daemon.child.kill('SIGTERM');
      }
      // The daemon delivers what it has on its way before it exits.
      expect((await daemon.done).code).toBe(0);
    }
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled']);
  });
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
    // `websites` holds domains, as in every event: the create that failed and the 12 deletes refused.
    const olds = Array.from({ length: 12 }, (_, i) => `old${i}.example.com`);
    expect([...(received[1]!.websites as string[])].sort()).toEqual([...olds, 'shop.example.com'].sort());
    expect(JSON.stringify(received)).not.toContain(PASSWORD);
    expect(JSON.stringify(received)).not.toContain(simulator.apiKey);
  });

  it('tells a standing situation once across runs, and again when it changes; a delete_delay from the manifest is told when due', async () => {
    const { env, dir } = await standingDelete();
    for (let run = 0; run < 3; run++) expect((await runCli(['--once'], env)).code).toBe(0);
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled']);

    simulator!.createWebsite({ domain: 'also-gone.example.com' });
    for (let run = 0; run < 2; run++) expect((await runCli(['--once'], env)).code).toBe(0);
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled', 'delete_scheduled']);
    expect(received[1]?.websites).toHaveLength(2);

    // A day passes (the state says since when, so time is moved there rather than waited for): the
    // deletes the manifest's delete_delay held back are due, sent, and told as such.
    const statePath = join(dir, 'state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, unknown>;
    const pending = state.pending_deletes as Record<string, { since: string }>;
    for (const entry of Object.values(pending))
      entry.since = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await writeFile(statePath, JSON.stringify(state));
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(simulator!.listWebsites().map((w) => w.domain)).toEqual(['keep.example.com']);
    expect(received.slice(2)).toMatchObject([
      { event: 'delete_due', websites: ['also-gone.example.com', 'gone.example.com'] },
    ]);
  });

  it('a dry run tells only observed drift: no delete was scheduled and no run was refused', async () => {
    const url = await startReceiver();
    const olds = Array.from({ length: 12 }, (_, i) => ({ domain: `old${i}.example.com` }));
    simulator = await startSimulator({
      websites: [{ domain: 'keep.example.com' }, { domain: 'seen.example.com', email: true }, ...olds],
    });
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-notify-'));
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: keep.example.com\n  - domain: seen.example.com\n    observe: true\n    email: false\n',
    );
    const env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_NOTIFY_URL: url };
    // Twelve deletes held back by a delay no dry run starts; then the same deletes at once, refused.
    for (let run = 0; run < 2; run++) {
      const dry = await runCli(['--once', '--dry-run', '--prune', '--delete-delay', '1h'], env);
      expect(dry.stdout).toContain('12 delete(s) pending (delete_delay)');
    }
    expect((await runCli(['--once', '--dry-run', '--prune'], env)).code).toBe(3);
    // It keeps nothing, so each dry run tells the observed drift the last real run did not.
    expect(received.map((e) => e.event)).toEqual(['drift_observed', 'drift_observed', 'drift_observed']);
    expect(received[0]).toMatchObject({ websites: ['seen.example.com'] });
    expect(simulator.listWebsites()).toHaveLength(14);
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

describe('notifications from the daemon: a run that fails', () => {
  async function daemonWithHook(
    simulator: Parameters<typeof startFixture>[0]['simulator'] = {},
    keyFile?: 'plain',
  ) {
    const url = await startReceiver();
    const notifier = new Notifier({ url, logger: pino({ level: 'silent' }), redact: (t) => t });
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }]),
      simulator,
      daemon: { notifier },
      ...(keyFile ? { keyFile } : {}),
    });
    fixture = f;
    const sighup = async (result: string) => {
      await f.resync((run) => run.result === result);
      await notifier.flush();
    };
    await f.runAfter(0);
    return { f, sighup };
  }

  it('tells a failed run once while the same failure stands, and when runs complete again', async () => {
    const { f, sighup } = await daemonWithHook();
    // Every read is answered with a body of the wrong shape, then the service is itself again.
    const broken = {
      script: Array.from({ length: 10 }, () => 'given-body' as const),
      givenBody: { data: 'not a list' },
    };
    f.sim.setFaults(broken);
    await sighup('failure');
    f.sim.setFaults(broken);
    await sighup('failure');
    f.sim.setFaults({ script: [] });
    await sighup('success');
    expect(received.map((e) => e.event)).toEqual(['run_failed', 'run_recovered']);
    expect(received[0]!.text).toMatch(/^websites-sync: the run failed: GET \/api\/v1\/websites/);
    expect(received[1]!.text).toBe('websites-sync: runs complete again');
  });

  it('tells a revoked key once, with what to do, however many runs it stops', async () => {
    const { f, sighup } = await daemonWithHook();
    // The key is regenerated in the web interface: every run is refused from then on.
    f.sim.setApiKey('regenerated-in-the-web-ui');
    await sighup('failure');
    await sighup('failure');
    await sighup('failure');
    expect(received.map((e) => e.event)).toEqual(['run_failed']);
    expect(received[0]!.text).toMatch(/rotated or revoked.*restart the daemon with the new key/s);
    expect(JSON.stringify(received)).not.toContain(f.sim.apiKey);
  });

  it('tells a revoked key once while the key file holds it, and that runs complete once it holds the new one', async () => {
    const { f, sighup } = await daemonWithHook({}, 'plain');
    f.sim.setApiKey('regenerated-in-the-web-ui');
    await sighup('failure');
    await sighup('failure');
    await sighup('failure');
    await writeFile(f.keyFile, 'regenerated-in-the-web-ui\n');
    await sighup('success');
    expect(received.map((e) => e.event)).toEqual(['run_failed', 'run_recovered']);
    expect(received[0]!.text).toContain(
      `rotated or revoked (regenerating it in the service's web interface ends the old one at once). Nothing is sent with it any more: write the new key into ${f.keyFile} (--api-key-file): the daemon reads it again before every run, no restart needed.`,
    );
    expect(JSON.stringify(received)).not.toContain(f.sim.apiKey);
  });

  it('tells drift corrected by the run that takes a new key: only what did drift, nothing resent', async () => {
    const { f, sighup } = await daemonWithHook({}, 'plain');
    f.sim.setApiKey('regenerated-in-the-web-ui');
    await sighup('failure');
    // Changed in the web interface while the daemon could not run.
    const a = f.sim.listWebsites().find((w) => w.domain === 'a.example.com')!;
    f.sim.updateWebsite(a.id, { privacy: a.privacy === 1 ? 0 : 1 });
    f.sim.clearRequests();
    await writeFile(f.keyFile, 'regenerated-in-the-web-ui\n');
    await sighup('success');
    expect(received.map((e) => e.event).sort()).toEqual(['drift_corrected', 'run_failed', 'run_recovered']);
    // The write-only field recorded with the key before (exclude_params) is not sent again.
    const sent = f.sim.requests.filter((r) => r.method !== 'GET');
    expect(sent.map((r) => Object.keys(r.body ?? {}))).toEqual([['privacy']]);
  });
});

describe('notifications from the daemon in observe mode (--dry-run)', () => {
  it('tells only observed drift: no delete was scheduled, no drift was corrected', async () => {
    const url = await startReceiver();
    const notifier = new Notifier({ url, logger: pino({ level: 'silent' }), redact: (t) => t });
    let clock = Date.parse('2026-11-24T10:00:00Z');
    const f = await startFixture({
      manifest: [
        'version: 1',
        'prune: true',
        'delete_delay: 1h',
        'websites:',
        '  - domain: a.example.com',
        '    privacy: public',
        '  - domain: seen.example.com',
        '    observe: true',
        '    email: false',
        '',
      ].join('\n'),
      simulator: {
        websites: [
          { domain: 'a.example.com', privacy: 1 },
          { domain: 'gone.example.com' },
          { domain: 'seen.example.com', email: true },
        ],
      },
      dryRun: true,
      daemon: { notifier, now: () => clock },
    });
    fixture = f;
    await f.runAfter(0);
    clock += 2 * 3_600_000;
    f.signals.emit('SIGHUP', 'SIGHUP');
    const resync = await f.runAfter(1);
    expect(resync.summary).toMatchObject({ update: 1, pending_delete: 1 });
    await notifier.flush();
    expect(received.map((e) => [e.event, e.websites])).toEqual([['drift_observed', ['seen.example.com']]]);
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
      await f.resync();
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
      ['drift_corrected', ['b.example.com']],
    ]);
    // `websites` holds domains, as in every event; what was done is in the text.
    expect(received[1]!.text).toBe('websites-sync corrected drift on 1 website(s): update b.example.com');

    // Only the failing correction is left, and it fails again: no drift was corrected.
    f.sim.updateWebsite(b!.id, { privacy: 0 });
    f.signals.emit('SIGHUP', 'SIGHUP');
    const failed = await f.runAfter(both.run);
    expect(failed.outcomes.map((o) => `${o.domain} ${o.result}`)).toEqual(['a.example.com failed']);
    await notifier.flush();
    expect(received.filter((e) => e.event === 'drift_corrected')).toHaveLength(1);
  });

  it('tells a delete that delete_delay held back as due, not as corrected drift', async () => {
    const url = await startReceiver();
    const notifier = new Notifier({ url, logger: pino({ level: 'silent' }), redact: (t) => t });
    let clock = Date.parse('2026-11-24T10:00:00Z');
    const f = await startFixture({
      manifest: manifestText(
        [{ domain: 'a.example.com', privacy: 'public' }],
        'prune: true\ndelete_delay: 1h\n',
      ),
      simulator: { websites: [{ domain: 'a.example.com' }, { domain: 'gone.example.com' }] },
      daemon: { notifier, now: () => clock },
    });
    fixture = f;
    await f.runAfter(0);
    await notifier.flush();
    expect(received.map((e) => e.event)).toEqual(['delete_scheduled']);

    // Two hours later a resync finds the delete due and a.example.com drifted: each told as what it is.
    clock += 2 * 3_600_000;
    const a = f.sim.listWebsites().find((w) => w.domain === 'a.example.com')!;
    f.sim.updateWebsite(a.id, { privacy: 1 });
    f.signals.emit('SIGHUP', 'SIGHUP');
    const due = await f.runAfter(1);
    expect(due.outcomes.map((o) => `${o.action} ${o.domain} ${o.result}`).sort()).toEqual([
      'delete gone.example.com deleted',
      'update a.example.com updated',
    ]);
    await notifier.flush();
    expect(received.slice(1).map((e) => [e.event, e.websites, e.text])).toEqual([
      [
        'drift_corrected',
        ['a.example.com'],
        'websites-sync corrected drift on 1 website(s): update a.example.com',
      ],
      ['delete_due', ['gone.example.com'], 'websites-sync: deletes now due: gone.example.com'],
    ]);
  });
});
