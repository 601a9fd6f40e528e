// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/notify/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { type Fixture, manifestText, saveByRename, startFixture } from '../daemon/fixture.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Notifications (issue 13 §6): a loopback webhook receiver gets one event per distinct event, none
// with a secret, from --once and from the daemon.
const PASSWORD = 'notify-secret-pw-42';
let receiver: Server | undefined;
let simulator: Simulator | undefined;
let fixture: Fixture | undefined;
const received: Array<Record<string, unknown>> = [];

async function startReceiver(): Promise<string> {
  received.length = 0;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((done) => receiver!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await simulator?.close();
  simulator = undefined;
  await new Promise((done) => (receiver ? receiver.close(done) : done(undefined)));
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
