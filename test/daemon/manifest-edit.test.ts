import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Timers } from '../../src/daemon/index.js';
import { type Fixture, manifestText, type Site, saveByRename, startFixture } from './fixture.js';

// Issue 14 §2: an edit of the manifest is applied by re-reading only what it touched, not the whole
// account; periodic resyncs (and SIGHUP) still list everything to find drift.
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const SITES: Site[] = Array.from({ length: 600 }, (_, i) => ({ domain: `a${i}.example.com` }));
const PRUNE = 'prune: true\n';

/** The requests of the last run, as `METHOD path` (with the search term of a lookup). */
function requestsOf(f: Fixture): string[] {
  return f.sim.requests.map((r) => {
    const query = r.query.search ? ` search=${r.query.search}` : r.query.page ? ` page=${r.query.page}` : '';
    return `${r.method} ${r.path}${query}`;
  });
}

describe('daemon: a manifest edit on a large account', () => {
  it('re-reads only the websites the edit touched, and lists everything on a resync', async () => {
    const f = await startFixture({
      manifest: manifestText(SITES, PRUNE),
      simulator: { websites: SITES.map(({ domain }) => ({ domain })) },
    });
    fixture = f;
    const idOf = (domain: string) => f.sim.listWebsites().find((w) => w.domain === domain)?.id;
    await f.runAfter(0); // start: 6 pages, and the first sends of write-only fields
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1); // a resync: converged, nothing written
    f.sim.clearRequests();

    // One website's privacy changes: one show, one update.
    const edited = SITES.map((s) =>
      s.domain === 'a5.example.com' ? { ...s, privacy: 'public' as const } : s,
    );
    await saveByRename(f.file, manifestText(edited, PRUNE));
    expect(await f.runAfter(2)).toMatchObject({ triggers: ['change'], result: 'success' });
    expect(requestsOf(f)).toEqual([
      `GET /api/v1/websites/${idOf('a5.example.com')}`,
      `PATCH /api/v1/websites/${idOf('a5.example.com')}`,
    ]);

    // A website added and one removed: a lookup and a create, a show and a delete (and a show of
    // the one written last time, whose record in the last listing is out of date).
    f.sim.clearRequests();
    const next = [...edited.filter((s) => s.domain !== 'a7.example.com'), { domain: 'new.example.com' }];
    const removedId = idOf('a7.example.com');
    await saveByRename(f.file, manifestText(next, PRUNE));
    expect(await f.runAfter(3)).toMatchObject({ triggers: ['change'], result: 'success' });
    // An edit reads no account plan (the last resync's holds); the delete's traffic is read first.
    expect(requestsOf(f).sort()).toEqual(
      [
        `DELETE /api/v1/websites/${removedId}`,
        `GET /api/v1/stats/${removedId}`,
        `GET /api/v1/websites/${idOf('a5.example.com')}`,
        `GET /api/v1/websites/${removedId}`,
        'GET /api/v1/websites search=new.example.com',
        'POST /api/v1/websites',
      ].sort(),
    );
    expect(f.sim.listWebsites().map((w) => w.domain)).toContain('new.example.com');
    expect(f.sim.listWebsites().map((w) => w.domain)).not.toContain('a7.example.com');

    // A resync lists every page again, and finds the account converged.
    f.sim.clearRequests();
    f.signals.emit('SIGHUP', 'SIGHUP');
    expect(await f.runAfter(4)).toMatchObject({
      triggers: ['signal'],
      result: 'success',
      summary: { create: 0, update: 0, delete: 0 },
    });
    // A resync reads the account's plan again (once), beside its 6 pages.
    expect(requestsOf(f).filter((r) => r === 'GET /api/v1/account')).toHaveLength(1);
    const pages = requestsOf(f).filter((r) => r !== 'GET /api/v1/account');
    expect(pages.every((r) => r.startsWith('GET /api/v1/websites'))).toBe(true);
    expect(pages).toHaveLength(6);
  });

  it('lists everything when an edit touches more websites than the listing has pages', async () => {
    const f = await startFixture({
      manifest: manifestText(SITES),
      simulator: { websites: SITES.map(({ domain }) => ({ domain })) },
    });
    fixture = f;
    await f.runAfter(0);
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1);
    f.sim.clearRequests();
    const edited = SITES.map((s, i) => (i < 6 ? { ...s, privacy: 'public' as const } : s));
    await saveByRename(f.file, manifestText(edited));
    await f.runAfter(2);
    // A full listing (and, as for any run that lists everything, the account's plan).
    const reads = requestsOf(f).filter((r) => r.startsWith('GET') && r !== 'GET /api/v1/account');
    expect(reads).toHaveLength(6);
    expect(reads.every((r) => /page=\d$/.test(r) || r === 'GET /api/v1/websites')).toBe(true);
  });

  it('still resyncs every --interval, and undoes drift, while edits come more often than that', async () => {
    const clock = virtualClock();
    const f = await startFixture({
      manifest: manifestText(SITES),
      simulator: { websites: SITES.map(({ domain }) => ({ domain })) },
      intervalMs: 1_000,
      // The edits below are handed to the daemon as its watcher hands them (a `change`).
      debounceMs: 1e12,
      daemon: { timers: clock.timers },
    });
    fixture = f;
    await f.runAfter(0);
    // Someone changes a website in the web UI.
    const drifted = f.sim.listWebsites().find((w) => w.domain === 'a3.example.com')!;
    f.sim.updateWebsite(drifted.id, { privacy: 0 });
    // An edit every 0.6 s of a 1 s interval (a pipeline that rewrites the manifest every 4 minutes of a
    // 5-minute interval): each one re-reads only what it touched.
    let sites = SITES;
    for (let i = 1; i <= 3; i++) {
      clock.advance(600);
      sites = [...sites, { domain: `new${i}.example.com` }];
      await saveByRename(f.file, manifestText(sites));
      const idle = once(f.handle.daemon, 'idle');
      f.handle.daemon.trigger('change');
      await idle;
    }
    const targeted = f.logs.filter((l) => l.msg === 'manifest edit: re-reading only the websites it touched');
    expect(targeted).toHaveLength(3);
    expect(f.runs.filter((r) => r.triggers.includes('interval'))).not.toHaveLength(0);
    expect(f.sim.listWebsites().find((w) => w.id === drifted.id)?.privacy).toBe(1);
    expect(f.sim.listWebsites().map((w) => w.domain)).toContain('new3.example.com');
  });
});

/** Timers on a clock of the test's own: `advance` fires, in order, those that come due. */
function virtualClock() {
  let now = 0;
  let next = 0;
  const pending = new Map<number, { due: number; callback: () => void }>();
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      pending.set(++next, { due: now + ms, callback });
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (;;) {
      const due = [...pending].filter(([, t]) => t.due <= now).sort(([, a], [, b]) => a.due - b.due)[0];
      if (!due) return;
      pending.delete(due[0]);
      due[1].callback();
    }
  };
  return { timers, advance };
}
