import { mkdtemp, open, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES, readBounded } from '../../src/manifest/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A manifest is read whole, but never past MAX_MANIFEST_BYTES: a file named by mistake, or one that
// never ends (/dev/zero), was read until memory ran out. The daemon's case: test/daemon/manifest-pipe.test.ts.

const TOO_LARGE =
  'the manifest is larger than 64 MiB (one of 100,000 websites is about 6 MiB): is it the right file?';

let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

/** A sparse file one byte past the bound: it takes no room on the disk. */
async function oversized(dir: string): Promise<string> {
  const file = join(dir, 'websites.yaml');
  await writeFile(file, 'version: 1\nwebsites: []\n');
  await truncate(file, MAX_MANIFEST_BYTES + 1);
  return file;
}

describe('a manifest larger than a manifest may be', () => {
  it.skipIf(process.platform === 'win32')(
    '`validate -f /dev/zero` ends, refusing it, instead of reading for ever',
    async () => {
      const result = await runCli(['validate', '-f', '/dev/zero']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`/dev/zero:1:1: error: ${TOO_LARGE}`);
    },
  );

  it('`--once`: refused before any request', async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-size-'));
    const result = await runCli(['--once', '-f', await oversized(dir)], toolEnv(simulator, dir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(TOO_LARGE);
    expect(simulator.requests).toEqual([]);
  });
});

describe('readBounded', () => {
  it('reads a file of exactly the bound, and says "too large" at one byte more without reading on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-size-'));
    const file = join(dir, 'm.yaml');
    await writeFile(file, 'x'.repeat(10));
    const atBound = await open(file);
    expect(await readBounded(atBound, 10)).toEqual({ bytes: Buffer.from('x'.repeat(10)) });
    await atBound.close();
    const past = await open(file);
    expect(await readBounded(past, 9)).toEqual({ tooLarge: true });
    await past.close();
  });
});
