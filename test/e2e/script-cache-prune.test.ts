// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { execFile } from 'node:child_process';
import {
  chown,
  copyFile,
  lstat,
  lutimes,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptIdLine } from '../../scripts/cli-bundle.mjs';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { CLI, runCli, toolEnv } from '../helpers/cli.js';

// What a save of the CLI's script cache removes beside it (src/cli/script-cache-prune.ts): each build
// names its caches by its own id, and an upgrade, or a run killed while saving, left files there for ever.

const DAY = 24 * 60 * 60 * 1000;
const OTHER = 'a1b2c3d4e5f60718';
let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'script-cache-prune-key' });
});
afterAll(async () => simulator?.close());

/**
 * A temporary directory of the run's own and a manifest of one website; `dir` is the cache directory,
 * made by a `--version` run (which saves the `other` cache); `dryRun` saves the `sync` cache the first time.
 */
async function setUp() {
  const temp = await mkdtemp(join(tmpdir(), 'script-cache-prune-'));
  await writeFile(
    join(temp, 'websites.yaml'),
    'version: 1\nwebsites:\n  - domain: prune.example\n    privacy: password\n    password: ${SITE_PASSWORD}\n',
  );
  const env = { ...toolEnv(simulator, temp), SITE_PASSWORD: 'prune-password', TMPDIR: temp };
  expect((await runCli(['--version'], env)).code).toBe(0);
  const other = (await readdir(temp, { recursive: true, withFileTypes: true })).find((entry) =>
    /^websites-sync-[0-9a-f]{16}-other\.cache$/.test(entry.name),
  );
  expect(other).toBeDefined();
  const dir = join(other?.parentPath ?? '', '');
  const id = /-([0-9a-f]{16})-/.exec(other?.name ?? '')?.[1] ?? '';
  const dryRun = async () => expect((await runCli(['--once', '--dry-run'], env)).code).toBe(0);
  return { temp, env, dir, id, dryRun };
}

/** Writes `name` in `dir`, last written `age` ms ago. */
async function plant(dir: string, name: string, age: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, Buffer.alloc(1024, 1));
  const then = new Date(Date.now() - age);
  await utimes(path, then, then);
  return path;
}

/** Another build of the CLI in `temp` (the same code, named `OTHER`): a second install on one machine. */
async function otherBuild(temp: string, id: string): Promise<string> {
  const cli = join(temp, 'pkg/dist/cli');
  await mkdir(cli, { recursive: true });
  await copyFile(new URL('../../package.json', import.meta.url), join(temp, 'pkg/package.json'));
  const loader = await readFile(CLI, 'utf8');
  expect(loader).toContain(JSON.stringify(id));
  await writeFile(join(cli, 'main.js'), loader.replaceAll(JSON.stringify(id), JSON.stringify(OTHER)));
  const script = await readFile(join(dirname(CLI), 'cli.cjs'), 'utf8');
  expect(script.endsWith(scriptIdLine(id))).toBe(true);
  await writeFile(join(cli, 'cli.cjs'), `${script.slice(0, -scriptIdLine(id).length)}${scriptIdLine(OTHER)}`);
  return join(cli, 'main.js');
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe.skipIf(process.platform === 'win32')("a save of the CLI's script cache", () => {
  it("removes another build's caches unused for a week, keeps one used this week, and a run that saves nothing removes nothing", async () => {
    const { dir, dryRun } = await setUp();
    const old = await plant(dir, `websites-sync-${OTHER}-sync.cache`, 8 * DAY);
    const oldOther = await plant(dir, `websites-sync-${OTHER}-other.cache`, 30 * DAY);
    const oldValidate = await plant(dir, `websites-sync-${OTHER}-validate.cache`, 9 * DAY);
    const recent = await plant(dir, 'websites-sync-0000000000000001-sync.cache', 6 * DAY);
    await dryRun();
    const left = await Promise.all([old, oldOther, oldValidate, recent].map(exists));
    expect(left).toEqual([false, false, false, true]);
    // The next run loads the cache the first made, saves none, and so removes nothing.
    const again = await plant(dir, `websites-sync-${OTHER}-sync.cache`, 8 * DAY);
    await dryRun();
    expect(await exists(again)).toBe(true);
  });

  it('keeps the cache of a build used alternately with another (two installs), used without being made again', async () => {
    const { temp, env, dir, id, dryRun } = await setUp();
    await dryRun();
    const ours = join(dir, `websites-sync-${id}-sync.cache`);
    // Made a week ago and used since: a run marks the cache it loads used, once a day at most.
    const then = new Date(Date.now() - 8 * DAY);
    await utimes(ours, then, then);
    const made = (await stat(ours)).ino;
    await dryRun();
    expect((await stat(ours)).mtimeMs).toBeGreaterThan(Date.now() - DAY);
    // The other install's first run saves its own cache, and keeps ours: the next run of ours loads it.
    const other = await otherBuild(temp, id);
    await promisify(execFile)(process.execPath, [other, '--version'], {
      env: { PATH: process.env.PATH, ...env },
    });
    expect(await exists(join(dir, `websites-sync-${OTHER}-other.cache`))).toBe(true);
    await dryRun();
    expect((await stat(ours)).ino).toBe(made);
  });

  it('removes the .partial files of saves that died an hour ago or more, and none a save may be writing', async () => {
    const { dir, id, dryRun } = await setUp();
    const dead = await plant(dir, `websites-sync-${id}-sync.cache.4242-k3j9x.partial`, 2 * 60 * 60 * 1000);
    const deadOther = await plant(dir, `websites-sync-${OTHER}-other.cache.7-0a1b.partial`, 3 * DAY);
    const live = await plant(dir, `websites-sync-${id}-sync.cache.4243-zz91.partial`, 1000);
    await dryRun();
    expect([await exists(dead), await exists(deadOther), await exists(live)]).toEqual([false, false, true]);
  });

  it('ages a file with an mtime in the future (a clock set right since) from that mtime, and marks its own used now', async () => {
    // A file written while the clock was a month ahead was kept until that date, and the cache in use
    // kept its future mtime: now its age counts either way, and loading it sets its mtime to now.
    const { dir, id, dryRun } = await setUp();
    const ahead = await plant(dir, `websites-sync-${OTHER}-sync.cache`, -30 * DAY);
    const partial = await plant(dir, `websites-sync-${OTHER}-other.cache.9-ab.partial`, -2 * 60 * 60 * 1000);
    await dryRun();
    expect([await exists(ahead), await exists(partial)]).toEqual([false, false]);
    const ours = join(dir, `websites-sync-${id}-sync.cache`);
    const future = new Date(Date.now() + 30 * DAY);
    await utimes(ours, future, future);
    await dryRun();
    expect(Math.abs((await stat(ours)).mtimeMs - Date.now())).toBeLessThan(DAY);
  });

  it('removes only the files it names: not another file, nor a link or a directory named like a cache', async () => {
    const { temp, dir, dryRun } = await setUp();
    const age = new Date(Date.now() - 30 * DAY);
    const stale = await plant(dir, `websites-sync-${OTHER}-sync.cache`, 30 * DAY);
    const others = await Promise.all(
      ['notes.txt', `websites-sync-${OTHER}-sync.cache.bak`, `x-websites-sync-${OTHER}-other.cache`].map(
        (name) => plant(dir, name, 30 * DAY),
      ),
    );
    const target = await plant(temp, 'kept.bin', 30 * DAY);
    const link = join(dir, 'websites-sync-0000000000000002-sync.cache');
    await symlink(target, link);
    await lutimes(link, age, age);
    const folder = join(dir, 'websites-sync-0000000000000003-other.cache');
    await mkdir(folder);
    await utimes(folder, age, age);
    await dryRun();
    expect(await exists(stale)).toBe(false);
    for (const path of [...others, link, folder, target])
      expect([path, await exists(path)]).toEqual([path, true]);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "leaves another user's caches (a directory shared by NODE_COMPILE_CACHE)",
    async () => {
      const { dir, dryRun } = await setUp();
      const stale = await plant(dir, `websites-sync-${OTHER}-sync.cache`, 30 * DAY);
      const theirs = await plant(dir, 'websites-sync-0000000000000004-sync.cache', 30 * DAY);
      await chown(theirs, 65534, 65534);
      await dryRun();
      expect([await exists(stale), await exists(theirs)]).toEqual([false, true]);
    },
  );
});
