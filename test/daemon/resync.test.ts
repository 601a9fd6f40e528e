import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, manifestText, startFixture } from './fixture.js';

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const MANIFEST = manifestText([{ domain: 'a.example.com', privacy: 'public' }]);

/** Someone changes the website in the web UI. */
function drift(f: Fixture): void {
  const [site] = f.sim.listWebsites();
  f.sim.updateWebsite(site!.id, { privacy: 1 });
}

const privacy = (f: Fixture) => f.sim.listWebsites()[0]?.privacy;

describe('daemon: drift made outside the manifest is undone', () => {
  it('on SIGHUP', async () => {
    const f = await startFixture({ manifest: MANIFEST });
    fixture = f;
    await f.runAfter(0);
    drift(f);
    expect(privacy(f)).toBe(1);
    f.signals.emit('SIGHUP', 'SIGHUP');
    const run = await f.runAfter(1);
    expect(run).toMatchObject({ run: 2, triggers: ['signal'], result: 'success' });
    expect(run.outcomes).toEqual([{ action: 'update', domain: 'a.example.com', id: 1, result: 'updated' }]);
    expect(privacy(f)).toBe(0);
    expect(f.logs.some((l) => l.msg === 'run requested' && l.signal === 'SIGHUP')).toBe(true);
  });

  it('on the interval', async () => {
    const f = await startFixture({ manifest: MANIFEST, intervalMs: 200 });
    fixture = f;
    await f.runAfter(0);
    drift(f);
    const run = await f.runAfter(1, (r) => r.outcomes.length > 0);
    expect(run).toMatchObject({ triggers: ['interval'], result: 'success' });
    expect(run.outcomes).toEqual([{ action: 'update', domain: 'a.example.com', id: 1, result: 'updated' }]);
    expect(privacy(f)).toBe(0);
    // Every interval run found the account converged or repaired it; none ran alongside another.
    expect(f.runs.every((r) => r.result === 'success')).toBe(true);
    expect(f.maxConcurrent).toBe(1);
  });
});
