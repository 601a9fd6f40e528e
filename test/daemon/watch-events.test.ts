import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FSWatcher } from 'chokidar';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';

// What the OS reports is not always what chokidar's docs show: fs.watch documents that a file name
// may be missing (null), and chokidar passes it on in its `raw` event. The watchers the daemon makes
// are kept here so such an event can be given to them.
const made = vi.hoisted(() => [] as FSWatcher[]);
vi.mock('chokidar', async (original) => {
  const chokidar = await original<typeof import('chokidar')>();
  return {
    ...chokidar,
    watch: (...args: Parameters<typeof chokidar.watch>) => {
      const watcher = chokidar.watch(...args);
      made.push(watcher);
      return watcher;
    },
  };
});

const { ManifestWatcher } = await import('../../src/daemon/index.js');

let dir: string | undefined;
afterEach(async () => {
  made.splice(0);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the manifest watcher, given the events the OS gives', () => {
  it('takes an event without a file name as one that may be the manifest, and does not throw', async () => {
    dir = await mkdtemp(join(tmpdir(), 'websites-sync-watch-events-'));
    const file = join(dir, 'websites.yaml');
    await writeFile(file, 'version: 1\nwebsites: []\n');
    const changed = vi.fn();
    const watcher = new ManifestWatcher({
      file,
      debounceMs: 10,
      onChange: changed,
      logger: pino({ level: 'silent' }),
    });
    await watcher.start();
    try {
      // The manifest directory's watcher: the one that listens to raw events.
      const directoryWatcher = made.find((w) => w.listenerCount('raw') > 0);
      expect(directoryWatcher).toBeDefined();
      await writeFile(file, 'version: 1\nwebsites:\n  - domain: a.example.com\n');
      // The event a platform may give for that write: no name at all.
      // chokidar's types say a string; fs.watch, and so chokidar, may give null.
      const raw = directoryWatcher as unknown as { emit(event: 'raw', ...args: unknown[]): boolean };
      expect(() => raw.emit('raw', 'rename', null, {})).not.toThrow();
      await vi.waitFor(() => expect(changed).toHaveBeenCalled(), { timeout: 10_000 });
    } finally {
      await watcher.close();
    }
  });
});
