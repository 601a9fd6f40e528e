import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, manifestText, metricValue, saveByRename, startFixture } from './fixture.js';

// A condition every resync meets again is said once while it stands, not at every resync (the lines
// would flood a log aggregator and bury new ones), and said again once it ended and came back.
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const SITES = [{ domain: 'a.example.com' }];

describe('daemon: a standing condition is logged once', () => {
  it('no state file yet (a converged account has nothing to record): said once, again when it comes back', async () => {
    const f = await startFixture({ manifest: manifestText(SITES), simulator: { websites: SITES } });
    fixture = f;
    const said = () =>
      f.logs.filter((l) => (l.level as number) >= 30 && l.msg === 'write-only fields will be resent once');
    await f.runAfter(0);
    await f.resync();
    await f.resync();
    await f.resync();
    expect(said()).toHaveLength(1);
    // A write-only field declared: sent once, and a state file recorded; a resync then finds it.
    await saveByRename(f.file, manifestText(SITES, 'defaults:\n  exclude_params: [utm_source]\n'));
    await f.until(() => f.runs.some((r) => r.triggers.includes('change')), 'the edit to be applied');
    await f.resync();
    expect(said()).toHaveLength(1);
    // The state file is gone again: said again, once.
    await rm(join(f.dir, '.websites-sync-state.json'));
    await f.resync();
    await f.resync();
    expect(said()).toHaveLength(2);
  });

  it('the service down: its retries are said by the first resync that meets them, then once it answers again', async () => {
    const f = await startFixture({
      manifest: manifestText(SITES),
      simulator: { websites: SITES },
      retry: { minDelayMs: 1, maxDelayMs: 2, maxRetries: 2 },
    });
    fixture = f;
    const retries = () => f.logs.filter((l) => l.level === 40 && l.stage === 'service');
    const back = () => f.logs.filter((l) => l.level === 30 && /^service reachable again/.test(l.msg));
    const failed = async () =>
      metricValue(await f.metrics.registry.metrics(), 'websites_sync_api_requests_total{status="503"}');
    await f.runAfter(0);

    f.sim.setFaults({ down: true });
    expect(await f.resync()).toMatchObject({ result: 'failure' });
    const told = retries().length;
    expect(told).toBeGreaterThan(0);
    expect(retries()[0]!.msg).toMatch(/^GET \/api\/v1\/\w+: HTTP 503; retry 1 in /);
    const afterFirst = (await failed())!;
    await f.resync();
    expect(await f.resync()).toMatchObject({ result: 'failure' });
    expect(retries()).toHaveLength(told);
    // The metrics still show every failed attempt of every resync.
    expect(await failed()).toBeGreaterThan(afterFirst);
    expect(back()).toHaveLength(0);

    f.sim.setFaults({ down: false });
    expect(await f.resync()).toMatchObject({ result: 'success' });
    // Said by the first resync that needs no retry, whatever the failed ones before it met.
    expect(back()).toHaveLength(1);
    await f.resync();
    expect(back()).toHaveLength(1);

    // Down again: a new outage, said again.
    f.sim.setFaults({ down: true });
    await f.resync();
    await f.resync();
    expect(retries()).toHaveLength(2 * told);
  });

  it('a resync that fails does not say a condition ended: the drift of an observed website stands while the service is down', async () => {
    const f = await startFixture({
      manifest: [
        'version: 1',
        'websites:',
        '  - domain: a.example.com',
        '    privacy: public',
        '    observe: true',
        '',
      ].join('\n'),
      simulator: { websites: [{ domain: 'a.example.com', privacy: 1 }] },
      retry: { minDelayMs: 1, maxDelayMs: 2, maxRetries: 1 },
    });
    fixture = f;
    const drifted = () => f.logs.filter((l) => l.level === 40 && /observed website\(s\) drifted/.test(l.msg));
    const ended = () => f.logs.filter((l) => l.msg === 'observed websites: no drift any more');
    await f.runAfter(0);
    expect(drifted()).toHaveLength(1);
    // The service down: the resync plans nothing, so it cannot tell that the drift ended.
    f.sim.setFaults({ down: true });
    expect(await f.resync()).toMatchObject({ result: 'failure' });
    expect(ended()).toHaveLength(0);
    // Back: the drift is still there, and was never said to have ended, so it is not said again.
    f.sim.setFaults({ down: false });
    expect(await f.resync()).toMatchObject({ result: 'success' });
    expect(ended()).toHaveLength(0);
    expect(drifted()).toHaveLength(1);
  });

  it('a delete the traffic guard refuses: said once while refused, though its visitors move; again once it comes back', async () => {
    const f = await startFixture({
      manifest: manifestText(SITES, 'prune: true\n'),
      simulator: { websites: [...SITES, { domain: 'busy.example.com', visitors_last_30d: 7 }] },
    });
    fixture = f;
    const refused = () => f.logs.filter((l) => l.level === 40 && /refused by the traffic guard/.test(l.msg));
    const busy = f.sim.listWebsites().find((site) => site.domain === 'busy.example.com')!;
    await f.runAfter(0);
    f.sim.addVisitors(busy.id, 5);
    await f.resync();
    await f.resync();
    expect(refused()).toHaveLength(1);
    expect(refused()[0]).toMatchObject({
      refused: ['busy.example.com: refused, 7 visitors in the last 30 days'],
    });
    // The gauge says it meanwhile.
    const gauge = 'websites_sync_websites_held_back{kind="traffic_refused"}';
    expect(metricValue(await f.metrics.registry.metrics(), gauge)).toBe(1);
    // Listed in the manifest for a while: nothing refused; then removed again: said again.
    await saveByRename(f.file, manifestText([...SITES, { domain: 'busy.example.com' }], 'prune: true\n'));
    await f.settle();
    await f.resync();
    expect(f.logs.filter((l) => l.msg === 'traffic guard: no delete refused any more')).toHaveLength(1);
    await saveByRename(f.file, manifestText(SITES, 'prune: true\n'));
    await f.settle();
    await f.resync();
    expect(refused()).toHaveLength(2);
  });
});
