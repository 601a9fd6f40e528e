import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';
import { readContent } from './content.js';
import { realTimers, type Timers } from './scheduler.js';

// Watching the file itself misses the saves that matter: editors save by writing a temporary file and
// renaming it over the original (the watched inode disappears), and a Kubernetes ConfigMap mount
// swaps a `..data` symlink to a new timestamped directory, so `websites.yaml` (a symlink through
// `..data`) never changes at all. So the whole directory is watched, any event in it only schedules a
// (debounced) look at the file's content, and only a different content hash is a change. That also
// makes identical rewrites, a state file saved beside the manifest, and stray events cost nothing.

/** While the manifest's directory is missing, how often to look for it again. */
const MISSING_DIRECTORY_POLL_MS = 1_000;
/**
 * The names the kubelet writes to swap a ConfigMap's files: the `..data` symlink, the `..data_tmp` it
 * renames over it, and the directories it points at (`..2026_11_26_15_04_05.` and random digits).
 */
const CONFIGMAP_NAME = /^\.\.(?:data(?:_tmp)?|\d{4}(?:_\d\d){5}\.\d+)$/;

export interface ManifestWatcherOptions {
  file: string;
  /** Quiet time after the last event before the content is looked at. */
  debounceMs: number;
  /** The content changed (or became unreadable, or readable again). */
  onChange: () => void;
  logger: Logger;
  timers?: Timers;
}

export class ManifestWatcher {
  readonly #options: ManifestWatcherOptions;
  readonly #timers: Timers;
  readonly #file: string;
  #watcher: FSWatcher | undefined;
  /** The inode of the directory `#watcher` watches: another one means it was deleted and recreated. */
  #watchedIno: number | undefined;
  /** Watches the directory's parent, to see the directory itself vanish and come back. */
  #parent: FSWatcher | undefined;
  #rearming: Promise<void> = Promise.resolve();
  /** Pending look for a missing directory: the parent's watcher may miss its creation. */
  #missingPoll: unknown;
  #started = false;
  #debounce: unknown;
  #hash: string | undefined;
  #checking: Promise<void> = Promise.resolve();
  #closed = false;
  #stopWaiting: () => void = () => {};

  constructor(options: ManifestWatcherOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#file = resolve(options.file);
  }

  /** Takes the current content as the baseline, then resolves once the watchers are in place. */
  async start(): Promise<void> {
    this.#hash = (await readContent(this.#file)).hash;
    const directory = dirname(this.#file);
    if ((await inodeOf(directory)) === undefined) {
      this.#options.logger.warn(
        { stage: 'watch', directory },
        'the manifest directory does not exist; it is watched from the moment it is created',
      );
    }
    if (this.#closed) return;
    this.#parent = watch(dirname(directory), { ignoreInitial: true, depth: 0, followSymlinks: false });
    this.#parent.on('all', (event, path) => {
      if (resolve(path) !== directory) return;
      // Gone: the next directory there is a new one, even when it gets the same inode number back.
      if (event === 'unlinkDir') this.#watchedIno = undefined;
      void this.#rearm();
    });
    this.#parent.on('error', () => {});
    await this.#rearm();
    this.#started = true;
  }

  /**
   * (Re)watches the manifest's directory when it is not watched yet or was deleted and recreated (a
   * new inode): a watch on a deleted directory is silently dead, and the daemon would never see
   * another edit.
   */
  #rearm(): Promise<void> {
    // One at a time: two events at once must not both open a watcher.
    this.#rearming = this.#rearming.then(() => this.#rearmNow());
    return this.#rearming;
  }

  async #rearmNow(): Promise<void> {
    const directory = dirname(this.#file);
    const ino = await inodeOf(directory);
    // A file system reuses a freed inode number at once (ext4, tmpfs): a directory seen missing is
    // forgotten, so one recreated under the same number is still watched again.
    if (ino === undefined) {
      this.#watchedIno = undefined;
      this.#pollWhileMissing();
    }
    if (this.#closed || ino === undefined || ino === this.#watchedIno) return;
    const previous = this.#watcher;
    this.#watchedIno = ino;
    if (previous) {
      this.#options.logger.warn(
        { stage: 'watch', directory },
        'the manifest directory was recreated; watching it again',
      );
      await previous.close();
    }
    await this.#watchDirectory(directory);
    // Whatever happened while nothing watched is looked at now.
    if (this.#started) this.#poke('rearm', directory);
  }

  /**
   * The parent's watcher does not always report a directory created again soon after it was deleted (a
   * busy parent such as /tmp), so a missing directory is also looked for every second until it is back.
   */
  #pollWhileMissing(): void {
    if (this.#closed || this.#missingPoll !== undefined) return;
    this.#missingPoll = this.#timers.setTimeout(() => {
      this.#missingPoll = undefined;
      void this.#rearm();
    }, MISSING_DIRECTORY_POLL_MS);
  }

  async #watchDirectory(directory: string): Promise<void> {
    const watcher = watch(directory, {
      ignoreInitial: true,
      depth: 0,
      // The `..data` swap is seen on the symlink itself; following it would watch old directories.
      followSymlinks: false,
      atomic: true,
      persistent: true,
    });
    this.#watcher = watcher;
    // `raw` too: every event the OS reports pokes, whatever chokidar's normalisation makes of it.
    watcher.on('all', (event, path) => this.#poke(event, path));
    watcher.on('raw', (event, path) => this.#poke(event, path));
    watcher.on('error', (error) => {
      this.#options.logger.warn({ stage: 'watch', err: String(error) }, 'watcher error');
    });
    // A shutdown during start-up must not wait for a `ready` that a closed watcher never emits.
    await new Promise<void>((done) => {
      this.#stopWaiting = done;
      watcher.once('ready', () => done());
    });
    this.#options.logger.debug({ stage: 'watch', directory }, 'watching');
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopWaiting();
    if (this.#debounce !== undefined) this.#timers.clearTimeout(this.#debounce);
    this.#debounce = undefined;
    if (this.#missingPoll !== undefined) this.#timers.clearTimeout(this.#missingPoll);
    this.#missingPoll = undefined;
    await this.#watcher?.close();
    await this.#parent?.close();
    await this.#checking;
  }

  #poke(event: string, path: string | null | undefined): void {
    if (this.#closed || !this.#concerns(path)) return;
    this.#options.logger.trace({ stage: 'watch', event, path }, 'file event');
    if (this.#debounce !== undefined) this.#timers.clearTimeout(this.#debounce);
    this.#debounce = this.#timers.setTimeout(() => {
      this.#debounce = undefined;
      // Checks run one after another, so two of them never both report the same change.
      this.#checking = this.#checking.then(() => this.#check());
    }, this.#options.debounceMs);
  }

  /**
   * Whether an event in the manifest's directory may be a change of the manifest: its own name (an
   * edit, an editor's rename over it), a name of a Kubernetes ConfigMap's swap (CONFIGMAP_NAME), the
   * directory itself; an event without a name, to be safe. Any other file there is not looked at: a log
   * written beside the manifest would otherwise wake the watcher with every line, and log that it woke,
   * and the state file's own temporary names (`..websites-sync-state.json.….tmp`) with every save.
   */
  #concerns(path: string | null | undefined): boolean {
    // fs.watch may give no file name (null): documented, and then any event may be the manifest's.
    if (path === undefined || path === null || path === '') return true;
    const name = basename(path);
    // The directory itself too (removed, recreated), named in full or, in a raw event, by its name.
    return (
      name === basename(this.#file) || CONFIGMAP_NAME.test(name) || name === basename(dirname(this.#file))
    );
  }

  async #check(): Promise<void> {
    if (this.#closed) return;
    await this.#rearm();
    const { logger } = this.#options;
    logger.trace({ stage: 'watch' }, 'looking at the manifest');
    const { hash } = await readContent(this.#file);
    const changed = hash !== this.#hash && !this.#closed;
    if (changed) {
      this.#hash = hash;
      logger.debug({ stage: 'watch', file: this.#file }, 'manifest changed');
      this.#options.onChange();
    }
    // Logged last: once it is written, a change it found has already asked for its run.
    logger.trace({ stage: 'watch', changed }, 'manifest looked at');
  }
}

async function inodeOf(directory: string): Promise<number | undefined> {
  try {
    const info = await stat(directory);
    return info.isDirectory() ? info.ino : undefined;
  } catch {
    return undefined;
  }
}
