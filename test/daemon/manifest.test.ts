import { rm, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectNoPasswordText,
  manifestWithPassword,
  UNREADABLE_PASSWORDS,
} from '../helpers/unreadable-passwords.js';
import { type Fixture, manifestText, saveByRename, startFixture, swapConfigMap } from './fixture.js';

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const GOOD = manifestText([{ domain: 'a.example.com' }]);
const FIXED = manifestText([{ domain: 'a.example.com' }, { domain: 'b.example.com' }]);
// A typo in a key must never pass silently: the whole file is refused.
const TYPO = `${FIXED}    exlude_bots: false\n`;

async function get(f: Fixture, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(f.url(path));
  return { status: response.status, body: await response.text() };
}

function writes(f: Fixture) {
  return f.sim.requests.filter((r) => r.method !== 'GET');
}

describe('daemon: the last good manifest stays in force', () => {
  it('applies nothing from an invalid manifest, stays alive but not ready, and recovers once fixed', async () => {
    const f = await startFixture({ manifest: GOOD });
    fixture = f;
    await f.runAfter(0);
    expect(await get(f, '/readyz')).toEqual({ status: 200, body: 'ready\n' });
    f.sim.clearRequests();

    await saveByRename(f.file, TYPO);
    const invalid = await f.runAfter(1);
    expect(invalid).toMatchObject({ triggers: ['change'], result: 'invalid_manifest' });
    expect(invalid.reason).toMatch(/websites\.yaml:\d+:\d+: error: .*exlude_bots/);
    expect(f.sim.requests).toEqual([]);
    expect(f.sim.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);
    const ready = await get(f, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(
      /^manifest invalid \(the last good one stays in force\): .*websites\.yaml:5:5/,
    );
    expect(await get(f, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(f.logs.some((l) => l.level === 50 && l.line === 5 && l.column === 5)).toBe(true);

    // A resync meanwhile uses the last good manifest: b.example.com is still not created.
    f.signals.emit('SIGHUP', 'SIGHUP');
    const resync = await f.runAfter(invalid.run);
    expect(resync).toMatchObject({ triggers: ['signal'], result: 'success' });
    expect(resync.summary).toMatchObject({ create: 0, unchanged: 1 });
    expect(writes(f)).toEqual([]);
    expect((await get(f, '/readyz')).status).toBe(503);

    await saveByRename(f.file, FIXED);
    const fixed = await f.runAfter(resync.run);
    expect(fixed).toMatchObject({ triggers: ['change'], result: 'success' });
    expect(f.sim.listWebsites().map((w) => w.domain)).toEqual(['a.example.com', 'b.example.com']);
    expect(await get(f, '/readyz')).toEqual({ status: 200, body: 'ready\n' });
  });

  it.each([
    [
      'nested thousands of levels deep',
      `${GOOD}x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
      /websites\.yaml:\d+:\d+: error: the manifest is nested too deeply/,
    ],
    [
      // Issue 10 §2: read by the fast reader before any depth check, this was a stack overflow.
      'a block list nested thousands of levels deep',
      `version: 1\nwebsites:\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}- \n`).join('')}`,
      /websites\.yaml:258:257: error: the manifest is nested too deeply here \(more than 64 levels of brackets or 256 columns of indentation\)/,
    ],
    [
      'not UTF-8',
      Buffer.concat([Buffer.from(GOOD), Buffer.from([0x23, 0x20, 0xe9, 0x0a])]),
      /websites\.yaml:\d+:3: error: the manifest is not valid UTF-8/,
    ],
  ])('keeps the last good manifest when the file is %s, and is not ready', async (_name, content, reason) => {
    const f = await startFixture({ manifest: GOOD });
    fixture = f;
    await f.runAfter(0);
    f.sim.clearRequests();
    await saveByRename(f.file, content as string);
    const invalid = await f.runAfter(1);
    expect(invalid).toMatchObject({ triggers: ['change'], result: 'invalid_manifest' });
    expect(invalid.reason).toMatch(reason);
    expect(f.sim.requests).toEqual([]);
    const ready = await get(f, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/^manifest invalid \(the last good one stays in force\): /);
    expect(ready.body).toMatch(reason);
    // The last good manifest stays in force: a resync plans from it and finds nothing to do.
    f.signals.emit('SIGHUP', 'SIGHUP');
    expect(await f.runAfter(invalid.run)).toMatchObject({ result: 'success', summary: { unchanged: 1 } });
    expect(f.sim.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);
  });

  it.each(UNREADABLE_PASSWORDS)(
    'a password YAML cannot read (%s): located in the logs and /readyz, never quoted',
    async (_name, password) => {
      const f = await startFixture({ manifest: GOOD });
      fixture = f;
      await f.runAfter(0);
      await saveByRename(f.file, manifestWithPassword(password));
      const invalid = await f.runAfter(1);
      expect(invalid).toMatchObject({ result: 'invalid_manifest' });
      expect(invalid.reason).toMatch(/websites\.yaml:5:15: error: websites\[0\]\.password: /);
      const ready = await get(f, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatch(/websites\.yaml:5:15: error: websites\[0\]\.password: /);
      expectNoPasswordText([invalid.reason, ready.body, JSON.stringify(f.logs)].join('\n'), password);
    },
  );

  it("applies a ConfigMap's manifest without a final line break (Helm's |-): the kubelet writes it whole", async () => {
    const f = await startFixture({ manifest: `prune: true\n${GOOD}`, configMap: true });
    fixture = f;
    await f.runAfter(0);
    const complete = `prune: true\n${manifestText([{ domain: 'a.example.com' }, { domain: 's.example.com' }])}`;
    await swapConfigMap(f.file, complete.trimEnd());
    const applied = await f.runAfter(1);
    expect(applied).toMatchObject({ triggers: ['change'], result: 'success' });
    expect(f.sim.listWebsites().map((w) => w.domain)).toContain('s.example.com');
  });

  it('applies nothing from a file caught mid-line while being written, and applies it once complete', async () => {
    const f = await startFixture({ manifest: `prune: true\n${GOOD}` });
    fixture = f;
    await f.runAfter(0);
    f.sim.clearRequests();
    // Written in place, cut inside the last domain: as it is, it would create s.example.c.
    const complete = `prune: true\n${manifestText([{ domain: 'a.example.com' }, { domain: 's.example.com' }])}`;
    await writeFile(f.file, complete.slice(0, -4));
    const cut = await f.runAfter(1);
    expect(cut).toMatchObject({ triggers: ['change'], result: 'invalid_manifest' });
    expect(cut.reason).toMatch(/does not end with a line break/);
    expect(writes(f)).toEqual([]);
    expect((await get(f, '/readyz')).status).toBe(503);

    await writeFile(f.file, complete);
    await f.runAfter(cut.run, (r) => r.result === 'success');
    expect(
      f.sim
        .listWebsites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(['a.example.com', 's.example.com']);
    expect(writes(f).filter((w) => w.method === 'DELETE')).toEqual([]);
  });

  it('treats a deleted manifest as an error state, not a crash', async () => {
    const f = await startFixture({ manifest: GOOD });
    fixture = f;
    await f.runAfter(0);
    await rm(f.file);
    const missing = await f.runAfter(1);
    expect(missing).toMatchObject({ triggers: ['change'], result: 'invalid_manifest' });
    expect(missing.reason).toMatch(/does not exist/);
    expect((await get(f, '/readyz')).status).toBe(503);
    expect(f.sim.listWebsites()).toHaveLength(1);

    await saveByRename(f.file, FIXED);
    await f.runAfter(missing.run, (r) => r.result === 'success');
    expect(f.sim.listWebsites()).toHaveLength(2);
    expect((await get(f, '/readyz')).status).toBe(200);
  });

  it('keeps running, not ready, when no manifest was ever valid, and makes no request', async () => {
    const f = await startFixture({ manifest: TYPO });
    fixture = f;
    const first = await f.runAfter(0);
    expect(first).toMatchObject({ triggers: ['start'], result: 'invalid_manifest' });
    const ready = await get(f, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/^no valid manifest: /);
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1);
    expect(f.sim.requests).toEqual([]);

    await saveByRename(f.file, FIXED);
    await f.runAfter(2, (r) => r.result === 'success');
    expect(f.sim.listWebsites()).toHaveLength(2);
    expect((await get(f, '/readyz')).status).toBe(200);
  });
});

describe('daemon: observe mode (--dry-run without --once)', () => {
  it('logs the plan of every run and changes nothing', async () => {
    const f = await startFixture({ manifest: FIXED, dryRun: true });
    fixture = f;
    const first = await f.runAfter(0);
    expect(first).toMatchObject({ result: 'success', summary: { create: 2 }, outcomes: [] });
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1);
    const plans = f.logs.filter((l) => l.msg === 'observe mode: the plan was not applied');
    expect(plans).toHaveLength(2);
    expect(plans[0]).toMatchObject({
      run: 1,
      plan: { summary: { create: 2 }, changes: [{ action: 'create', domain: 'a.example.com' }, {}] },
    });
    expect(writes(f)).toEqual([]);
    expect(f.sim.listWebsites()).toEqual([]);
  });
});
