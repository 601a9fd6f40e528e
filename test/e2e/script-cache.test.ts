// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptIdLine } from '../../scripts/cli-bundle.mjs';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { CLI, runCli, startCli, toolEnv } from '../helpers/cli.js';

// The CLI's code runs from a code cache made at the end of a run (src/cli/script-cache.ts), in the
// directory of Node's compile cache (compile-cache.ts, whose own test covers where that may be).

const API_KEY = 'script-cache-key-7f3a9c';
const PASSWORD = 'script-cache-password-51d2';
let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: API_KEY });
});
afterAll(async () => simulator?.close());

/** A temporary directory of the run's own, a manifest of one website, and the environment for it. */
async function setUp(extra: Record<string, string> = {}) {
  const temp = await mkdtemp(join(tmpdir(), 'script-cache-'));
  await writeFile(
    join(temp, 'websites.yaml'),
    'version: 1\nwebsites:\n  - domain: cache.example\n    privacy: password\n    password: ${SITE_PASSWORD}\n',
  );
  const env = { ...toolEnv(simulator, temp), SITE_PASSWORD: PASSWORD, TMPDIR: temp, ...extra };
  const dryRun = () => runCli(['--once', '--dry-run'], env);
  return { temp, env, dryRun };
}

/** The cache files of the CLI's script under `dir`, by kind (`sync`, `validate`, `other`), with their paths. */
async function caches(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const kind = /^websites-sync-[0-9a-f]+-(sync|validate|other)\.cache$/.exec(entry.name)?.[1];
    if (kind) found[kind] = join(entry.parentPath, entry.name);
  }
  return found;
}

describe.skipIf(process.platform === 'win32')("the CLI's script cache", () => {
  it('is made by a dry run and used as it is by the next one, which V8 accepts', async () => {
    const { temp, dryRun } = await setUp();
    const first = await dryRun();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('cache.example');
    const { sync } = await caches(temp);
    expect(sync).toBeDefined();
    const made = await stat(sync as string);
    const second = await dryRun();
    expect(second.stdout).toBe(first.stdout);
    // A cache V8 refused would be made again, under a new inode: this one was run.
    const after = await stat(sync as string);
    expect([after.ino, after.mtimeMs]).toEqual([made.ino, made.mtimeMs]);
  });

  it("holds neither the API key nor a website's password", async () => {
    const { temp, dryRun } = await setUp();
    expect((await dryRun()).code).toBe(0);
    const bytes = await readFile((await caches(temp)).sync as string);
    for (const secret of [API_KEY, PASSWORD]) {
      expect(bytes.includes(Buffer.from(secret, 'latin1'))).toBe(false);
      expect(bytes.includes(Buffer.from(secret, 'utf16le'))).toBe(false);
    }
  });

  it('made by --version first, is made again by the first run of the service', async () => {
    const { temp, env, dryRun } = await setUp();
    expect((await runCli(['--version'], env)).code).toBe(0);
    expect(Object.keys(await caches(temp))).toEqual(['other']);
    expect((await dryRun()).code).toBe(0);
    expect(Object.keys(await caches(temp)).sort()).toEqual(['other', 'sync']);
  });

  it('made by --version first, is made again by the first validate that finds its manifest valid', async () => {
    // The cache --version made was every later validate's, which then compiled its checks at every run.
    const { temp, env } = await setUp();
    expect((await runCli(['--version'], env)).code).toBe(0);
    const validate = async () => expect((await runCli(['validate'], env)).code).toBe(0);
    await validate();
    const { validate: made } = await caches(temp);
    expect(made).toBeDefined();
    const before = await stat(made as string);
    await validate();
    const after = await stat(made as string);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(Object.keys(await caches(temp)).sort()).toEqual(['other', 'validate']);
  });

  it('is not made by a run stopped before its plan (an invalid manifest): the next good run makes it', async () => {
    const { temp, env, dryRun } = await setUp();
    const broken = join(temp, 'broken.yaml');
    await writeFile(broken, 'version: 1\nwebsites:\n  - domain: cache.example\n    privcy: public\n');
    expect((await runCli(['--once', '--dry-run', '-f', broken], env)).code).toBe(1);
    // Made by a run that compiled none of the service client, it would have served every later run.
    expect(Object.keys(await caches(temp))).toEqual(['other']);
    expect((await dryRun()).code).toBe(0);
    expect(Object.keys(await caches(temp)).sort()).toEqual(['other', 'sync']);
  });

  it('is not made by a run of the service that failed before it ran, but by the next that runs', async () => {
    // A first run on a machine that stopped at its configuration (a key file not found) made the cache
    // every later run used: it held only what runs until that error, and they compiled the rest.
    const { temp, env, dryRun } = await setUp();
    const failed = await runCli(['--once', '--dry-run'], {
      ...env,
      WEBSITES_SYNC_API_KEY_FILE: join(temp, 'none'),
    });
    expect(failed.code).toBe(1);
    expect((await caches(temp)).sync).toBeUndefined();
    expect((await dryRun()).code).toBe(0);
    expect((await caches(temp)).sync).toBeDefined();
  });

  it('is not made when the next run would refuse it (a V8 option the run sets, given on the command line)', async () => {
    // The run puts back V8's defaults of the options it sets before making the cache: with one of them
    // on Node's command line, every run refused the cache of the one before and made it again (1.4 MB).
    const { temp, env } = await setUp();
    const run = () =>
      startCli(['--once', '--dry-run'], env, [], undefined, ['--wasm-tiering-budget=5000000']);
    expect((await run().done).code).toBe(0);
    expect((await run().done).code).toBe(0);
    expect(await caches(temp)).toEqual({});
  });

  it('damaged, is refused by V8 and replaced, and the run is the same', async () => {
    const { temp, dryRun } = await setUp();
    const clean = await dryRun();
    const path = (await caches(temp)).sync as string;
    await writeFile(path, Buffer.alloc(4096, 7));
    const damaged = await dryRun();
    expect(damaged.code).toBe(0);
    expect(damaged.stdout).toBe(clean.stdout);
    expect((await readFile(path)).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  it('is not made with NODE_DISABLE_COMPILE_CACHE', async () => {
    const { temp, dryRun } = await setUp({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect((await dryRun()).code).toBe(0);
    expect(await caches(temp)).toEqual({});
  });

  it("made while the loader and the script were of two builds, is never run by either's", async () => {
    // An install replaced while a run starts (`npm i -g` of a new version), or a build stopped between
    // the script and the loader: V8 checks a cache only against the script's length, so a cache made
    // from one script, named for the other, was run in its place (the other build's code and texts).
    const temp = await mkdtemp(join(tmpdir(), 'script-cache-'));
    const cli = join(temp, 'pkg/dist/cli');
    await mkdir(cli, { recursive: true });
    await copyFile(new URL('../../package.json', import.meta.url), join(temp, 'pkg/package.json'));
    await copyFile(CLI, join(cli, 'main.js'));
    const built = await readFile(join(CLI, '../cli.cjs'), 'utf8');
    // Another build of the same length: one of its texts differs, and so its id.
    const idLine = built.lastIndexOf(scriptIdLine('').trimEnd());
    expect(idLine).toBeGreaterThan(0);
    const text = built.slice(0, idLine).replace('Never on the command line.', 'NEVER ON THE COMMAND LINE.');
    const other = `${text}${scriptIdLine('0123456789abcdef')}`;
    expect(other).toHaveLength(built.length);
    const help = async () => {
      const env = { PATH: process.env.PATH, TMPDIR: temp };
      return (await promisify(execFile)(process.execPath, [join(cli, 'main.js'), '--help'], { env })).stdout;
    };
    await writeFile(join(cli, 'cli.cjs'), other);
    expect(await help()).toContain('NEVER ON THE COMMAND LINE.');
    await writeFile(join(cli, 'cli.cjs'), built);
    const shown = await help();
    expect(shown).toContain('Never on the command line.');
    expect(shown).not.toContain('NEVER ON THE COMMAND LINE.');
  });
});
