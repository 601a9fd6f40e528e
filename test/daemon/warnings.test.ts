import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/notify/index.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { type Fixture, manifestText, startFixture } from './fixture.js';

// Issue 19 §9: an unattended run tells what a dry run tells. A warning of the plan (an ignore pattern
// that matches nothing: "check it for a typo") reaches the daemon's log and its webhook once while it
// stands, not on every pass, and again if it goes away and comes back.
let fixture: Fixture | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await receiver?.close();
  receiver = undefined;
});

const TYPO = 'check it for a typo';

describe('daemon: the plan warnings', () => {
  it('are logged and posted once while they stand, and again when they come back', async () => {
    receiver = await startReceiver();
    const notifier = new Notifier({
      url: receiver.url,
      logger: pino({ level: 'silent' }),
      redact: (t) => t,
    });
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }], 'ignore: ["shop-*.example.com"]\n'),
      simulator: { websites: [{ domain: 'a.example.com' }] },
      daemon: { notifier },
    });
    fixture = f;
    const warned = () => f.logs.filter((line) => line.level === 40 && line.msg.includes(TYPO));
    const posted = () => receiver!.received.filter((event) => event.event === 'warnings');
    const sighup = async () => {
      await f.resync();
      await notifier.flush();
    };
    await f.runAfter(0);
    await notifier.flush();
    expect(warned()).toHaveLength(1);
    expect(warned()[0]!.msg).toMatch(/ignore pattern "shop-\*\.example\.com" .* matches no website/);
    expect(posted()).toHaveLength(1);
    expect(posted()[0]!.warnings).toEqual([expect.stringContaining(TYPO)]);
    expect(posted()[0]!.text).toContain(TYPO);

    // Still standing: not told again.
    await sighup();
    await sighup();
    expect(warned()).toHaveLength(1);
    expect(posted()).toHaveLength(1);

    // The pattern matches a website now: the warning is gone, nothing new is told.
    const shop = f.sim.createWebsite({ domain: 'shop-1.example.com' });
    await sighup();
    expect(warned()).toHaveLength(1);
    expect(posted()).toHaveLength(1);

    // It comes back: told again, in the log and to the webhook.
    f.sim.deleteWebsite(shop.id);
    await sighup();
    expect(warned()).toHaveLength(2);
    expect(posted()).toHaveLength(2);
  });

  it("a manifest's own warning is logged once, not again with the plan that carries it", async () => {
    const f = await startFixture({
      manifest: manifestText([{ domain: 'www.a.example.com' }]),
      simulator: { websites: [{ domain: 'a.example.com' }] },
    });
    fixture = f;
    await f.runAfter(0);
    await f.resync();
    const warnings = f.logs.filter((line) => line.level === 40 && /www/.test(line.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ stage: 'manifest', line: 3 });
  });

  it('a first run that deletes without a state logs that once, not again as a plan warning', async () => {
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }], 'prune: true\n'),
      simulator: { websites: [{ domain: 'a.example.com' }, { domain: 'old.example.com' }] },
    });
    fixture = f;
    await f.runAfter(0);
    const said = f.logs.filter(
      (line) => line.level === 40 && line.msg.includes('protections recorded by earlier runs'),
    );
    expect(said).toHaveLength(1);
    expect(said[0]!.msg).toMatch(/^no state file at .*\.websites-sync-state\.json: /);
  });

  it('name what the guards held back: deletes refused for traffic, creates beyond the plan limit', async () => {
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }, { domain: 'new.example.com' }], 'prune: true\n'),
      simulator: {
        websites: [{ domain: 'a.example.com' }, { domain: 'busy.example.com', visitors_last_30d: 7 }],
        maxWebsites: 2,
      },
    });
    fixture = f;
    await f.runAfter(0);
    const warn = (msg: RegExp) => f.logs.find((line) => line.level === 40 && msg.test(line.msg));
    expect(warn(/1 delete\(s\) refused by the traffic guard/)).toMatchObject({
      refused: ['busy.example.com: refused, 7 visitors in the last 30 days'],
    });
    expect(warn(/1 create\(s\) beyond the account's plan limit/)).toMatchObject({
      unfit: ['new.example.com'],
    });
  });

  it('name the deletes whose traffic could not be read (lenient: not blocked)', async () => {
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }], 'prune: true\n'),
      simulator: {
        websites: [{ domain: 'a.example.com' }, { domain: 'quiet.example.com' }],
        faults: { statsFault: 500 },
      },
    });
    fixture = f;
    await f.runAfter(0);
    const line = f.logs.find((l) => l.level === 40 && /whose traffic could not be read/.test(l.msg));
    expect(line).toMatchObject({ unknown: ['quiet.example.com'] });
  });
});
