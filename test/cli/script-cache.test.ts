import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { scriptIdLine } from '../../scripts/cli-bundle.mjs';

// How a code cache is written (src/cli/script-cache.ts, built: `npm run build`), in a process of its own:
// Node's compile cache, whose directory it uses, is turned on once per process.
const built = pathToFileURL(join(import.meta.dirname, '../../dist/cli/script-cache.js')).href;

// The name the save used to write to first was `<cache>.<pid>.partial`: two containers sharing a cache
// volume have the same pids (1, 7…), and a file already there (another one's half-written cache, or a
// link) was written through. The child plants a link at that name, to a file of the user's, then saves.
const child = `
import { symlinkSync } from 'node:fs';
import { enableCompileCache, getCompileCacheDir } from 'node:module';
import { join } from 'node:path';
import { loadScript } from ${JSON.stringify(built)};
const [cacheDir, victim, script] = process.argv.slice(1);
enableCompileCache(cacheDir);
const cache = join(getCompileCacheDir(), 'websites-sync-test-sync.cache');
symlinkSync(victim, cache + '.' + process.pid + '.partial');
const loaded = loadScript(script, 'test');
loaded.save('sync');
process.stdout.write(String(loaded.exports.answer));
`;

it.skipIf(process.platform === 'win32')(
  'a save never writes into a file already at a name it could use, and still makes the cache',
  async () => {
    const temp = await mkdtemp(join(tmpdir(), 'script-cache-save-'));
    const victim = join(temp, 'victim.txt');
    await writeFile(victim, 'mine\n');
    const script = join(temp, 'script.cjs');
    await writeFile(script, `module.exports.answer = 6 * 7;\n${scriptIdLine('test')}`);
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      child,
      join(temp, 'cache'),
      victim,
      script,
    ]);
    expect(stdout).toBe('42');
    expect(await readFile(victim, 'utf8')).toBe('mine\n');
    const made = (await readdir(join(temp, 'cache'), { recursive: true, withFileTypes: true })).filter(
      (entry) => entry.name === 'websites-sync-test-sync.cache',
    );
    expect(made).toHaveLength(1);
    const entry = made[0];
    expect(entry && (await lstat(join(entry.parentPath, entry.name))).isFile()).toBe(true);
  },
);
