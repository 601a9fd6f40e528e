import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';

// Issue 23 §2: the package a user installs holds what the CLI needs and nothing else, and runs on its
// own: packed (from this build; .ci/run packs a fresh clone, where `prepack` builds), installed into an
// empty folder from npm's cache, and run from there, outside the clone.

const repo = fileURLToPath(new URL('../..', import.meta.url));
const example = join(repo, 'examples/websites.yaml');
let dir: string;
let files: string[];
let bin: string;
let simulator: Simulator;

function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error' },
  });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The installed command, run from the empty folder (spawned: the simulator answers from this process). */
function websitesSync(args: string[], env: Record<string, string> = {}) {
  const child = spawn(bin, args, { cwd: dir, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out })),
  );
}

/**
 * `npm install ./websites-sync-*.tgz` into the empty folder, offline: npm would ask the registry for its
 * dependencies' version lists, which `npm ci` never caches, so the folder gets a lockfile holding the
 * tarball and the versions this clone's lockfile pins (its production entries), as a user would resolve.
 */
function installOffline(tarball: string) {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; [key: string]: unknown }>;
  };
  const { version, license, dependencies, bin: bins, engines } = lock.packages[''] ?? {};
  const dependency = { 'websites-sync': `file:${tarball}` };
  const packages: Record<string, unknown> = {
    '': { name: 'empty', dependencies: dependency },
    'node_modules/websites-sync': {
      version,
      resolved: `file:${tarball}`,
      license,
      dependencies,
      bin: bins,
      engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path !== '' && !entry.dev && !entry.devOptional) packages[path] = entry;
  }
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'empty', private: true, dependencies: dependency }),
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'empty', lockfileVersion: 3, requires: true, packages }),
  );
  npm(['ci', '--offline', '--no-audit', '--no-fund'], dir);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'websites-sync-package-'));
  const [packed] = JSON.parse(
    npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], repo),
  ) as [{ filename: string; files: { path: string }[] }];
  files = packed.files.map((f) => f.path);
  installOffline(packed.filename);
  bin = join(dir, 'node_modules/.bin/websites-sync');
  simulator = await startSimulator({ apiKey: 'package-key' });
}, 60_000);

afterAll(async () => {
  await simulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the bundled CLI, the editor schema, the licence and nothing else', () => {
    expect(files).toContain('LICENSE');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('schema/websites.schema.json');
    const unexpected = files.filter(
      (f) =>
        !/^(LICENSE|README\.md|package\.json|schema\/websites\.schema\.json|dist\/cli\/(main\.js|cli\.cjs))$/.test(
          f,
        ),
    );
    expect(unexpected).toEqual([]);
  });

  it('runs installed in an empty folder: --version, validate and a dry run against the simulator', async () => {
    const version = await websitesSync(['--version']);
    expect(version.out).toMatch(/^websites-sync \d+\.\d+\.\d+/);
    const valid = await websitesSync(['validate', '-f', example]);
    expect(valid.code).toBe(0);
    const env = {
      WEBSITES_SYNC_BASE_URL: simulator.url,
      WEBSITES_SYNC_API_KEY: simulator.apiKey,
      WEBSITES_SYNC_STATE_FILE: join(dir, 'state.json'),
    };
    const plan = await websitesSync(['--once', '--dry-run', '-f', example], env);
    expect(plan.out).toContain('example.com');
    expect(plan.code).toBe(0);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
