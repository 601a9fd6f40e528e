import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Fixture,
  manifestText,
  type Site,
  saveByRename,
  startFixture,
  swapConfigMap,
  writeInPlace,
} from './fixture.js';

const BEFORE: Site[] = [{ domain: 'a.example.com' }];
const AFTER: Site[] = [{ domain: 'a.example.com' }, { domain: 'b.example.com', privacy: 'public' }];

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Once every file event has been looked at, `run` is still the last run. */
async function expectNothingElseRan(f: Fixture, run: number): Promise<void> {
  await f.settle();
  expect(f.runs.map((r) => r.run)).toEqual(Array.from({ length: run }, (_, i) => i + 1));
}

describe('daemon: watching the manifest', () => {
  it('does not look at other files beside the manifest: a log written there cannot feed on its own lines', async () => {
    const f = await startFixture({ manifest: manifestText(BEFORE) });
    fixture = f;
    await f.runAfter(0);
    await f.settle();
    const looksBefore = f.logs.filter((l) => l.msg === 'looking at the manifest').length;
    for (let i = 0; i < 20; i++) {
      await writeFile(join(dirname(f.file), 'daemon.log'), `line ${i}\n`, { flag: 'a' });
      // A name like the state file's temporary one (it starts with `..` as a ConfigMap's names do).
      await writeFile(join(dirname(f.file), `..websites-sync-state.json.${i}.tmp`), '{}');
    }
    await f.settle();
    const woken = f.logs.filter((l) => l.msg === 'file event' && /daemon\.log|\.tmp$/.test(String(l.path)));
    expect(woken).toEqual([]);
    // The settle marker's own look, and none for the log.
    expect(f.logs.filter((l) => l.msg === 'looking at the manifest').length).toBe(looksBefore + 1);
    expect(f.runs).toHaveLength(1);
  });

  it('keeps watching after the manifest directory is deleted and recreated', async () => {
    const f = await startFixture({ manifest: manifestText(BEFORE) });
    fixture = f;
    await f.runAfter(0);
    await rm(dirname(f.file), { recursive: true, force: true });
    const gone = await f.runAfter(1);
    expect(gone).toMatchObject({ triggers: ['change'], result: 'invalid_manifest' });
    await mkdir(dirname(f.file));
    await writeFile(f.file, manifestText(AFTER));
    await f.runAfter(gone.run, (r) => r.result === 'success' && r.summary?.create === 1);
    expect(f.sim.listWebsites().map((w) => w.domain)).toEqual(['a.example.com', 'b.example.com']);
  });

  it.each([
    { how: 'save-by-rename', configMap: false, save: saveByRename },
    { how: 'in-place write', configMap: false, save: writeInPlace },
    { how: 'ConfigMap ..data symlink swap', configMap: true, save: swapConfigMap },
  ])('sees a $how and applies it in exactly one run', async ({ configMap, save }) => {
    const f = await startFixture({ manifest: manifestText(BEFORE), configMap });
    fixture = f;
    const first = await f.runAfter(0);
    expect(first).toMatchObject({ run: 1, triggers: ['start'], result: 'success' });
    expect(f.sim.listWebsites().map((w) => w.domain)).toEqual(['a.example.com']);

    await save(f.file, manifestText(AFTER));
    const changed = await f.runAfter(1);
    expect(changed).toMatchObject({ run: 2, triggers: ['change'], result: 'success' });
    expect(changed.outcomes).toEqual([
      { action: 'create', domain: 'b.example.com', id: 2, result: 'created' },
    ]);
    expect(f.sim.listWebsites().map((w) => [w.domain, w.privacy])).toEqual([
      ['a.example.com', 1],
      ['b.example.com', 0],
    ]);
    await expectNothingElseRan(f, 2);
  });

  it('ignores a rewrite with identical content', async () => {
    const f = await startFixture({ manifest: manifestText(BEFORE) });
    fixture = f;
    await f.runAfter(0);
    await saveByRename(f.file, manifestText(BEFORE));
    await writeInPlace(f.file, manifestText(BEFORE));
    await expectNothingElseRan(f, 1);
    expect(f.logs.filter((l) => l.msg === 'manifest changed')).toEqual([]);
  });

  it('turns 20 rapid edits into at most 2 runs, never two at once', async () => {
    const f = await startFixture({ manifest: manifestText(BEFORE), debounceMs: 300 });
    fixture = f;
    await f.runAfter(0);
    const sites = [...BEFORE];
    for (let i = 1; i <= 20; i++) {
      sites.push({ domain: `edit-${i}.example.com` });
      const text = manifestText(sites);
      if (i % 2 === 0) await saveByRename(f.file, text);
      else await writeFile(f.file, text);
    }
    await f.until(() => f.sim.listWebsites().length === 21 && !f.handle.daemon.busy, 'all 20 edits applied');
    await f.settle();
    const changeRuns = f.runs.filter((r) => r.triggers.includes('change'));
    expect(changeRuns.length).toBeGreaterThanOrEqual(1);
    expect(changeRuns.length).toBeLessThanOrEqual(2);
    expect(f.runs).toHaveLength(1 + changeRuns.length);
    expect(f.maxConcurrent).toBe(1);
    expect(f.runs.every((r) => r.result === 'success')).toBe(true);
  });
});
