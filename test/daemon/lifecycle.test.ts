import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, metricValue, saveByRename, startFixture } from './fixture.js';

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const HOUR = 3_600_000;

describe('daemon: delete_delay turns a bad merge into a warning', () => {
  it('warns and counts a pending delete, sends it once due, and never deletes a protected website', async () => {
    let clock = Date.parse('2026-11-24T10:00:00Z');
    const f = await startFixture({
      manifest:
        'version: 1\nprune: true\ndelete_delay: 1h\nwebsites:\n  - domain: stay.example.com\n  - domain: kept.example.com\n    protect: true\n',
      simulator: {
        websites: [
          { domain: 'stay.example.com' },
          { domain: 'gone.example.com' },
          { domain: 'kept.example.com' },
        ],
      },
      daemon: { now: () => clock },
    });
    fixture = f;
    const first = await f.runAfter(0);
    expect(first).toMatchObject({ result: 'success', summary: { delete: 0, pending_delete: 1 } });
    expect(f.logs.some((l) => l.level === 40 && l.msg === '1 delete(s) pending (delete_delay)')).toBe(true);
    const metrics = await (await fetch(f.url('/metrics'))).text();
    expect(metricValue(metrics, 'websites_sync_websites_held_back{kind="pending_delete"}')).toBe(1);

    // A bad merge also drops the protected entry.
    await saveByRename(
      f.file,
      'version: 1\nprune: true\ndelete_delay: 1h\nwebsites:\n  - domain: stay.example.com\n',
    );
    await f.settle();
    expect(f.runs.at(-1)?.summary).toMatchObject({ delete: 0, pending_delete: 1, protected: 1 });

    clock += 2 * HOUR;
    f.signals.emit('SIGHUP', 'SIGHUP');
    const due = await f.runAfter(f.runs.at(-1)!.run, (run) => run.summary?.delete === 1);
    expect(due).toMatchObject({ result: 'success', summary: { delete: 1, protected: 1 } });
    expect(
      f.sim
        .listWebsites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(['kept.example.com', 'stay.example.com']);
  });
});
