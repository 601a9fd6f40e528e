import { mkdtemp, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES } from '../../src/manifest/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// A manifest is read whole, but never past MAX_MANIFEST_BYTES: a file named by mistake, or one that
// never ends (/dev/zero), was read until memory ran out. The daemon's case: test/daemon/manifest-pipe.test.ts;
// the rule itself: test/model/whole-file.test.ts.

const TOO_LARGE =
  'bytes; at most 67,108,864 (64 MiB) are allowed for a manifest (one of 100,000 websites is about 6 MiB): is it the right file? It was not read further';

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
      expect(result.stderr).toContain(
        `/dev/zero:1:1: error: the file holds more than 67,108,864 ${TOO_LARGE}`,
      );
    },
  );

  it('`--once`: refused before any request', async () => {
    simulator = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-size-'));
    const result = await runCli(['--once', '-f', await oversized(dir)], toolEnv(simulator, dir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`websites.yaml:1:1: error: the file holds 67,108,865 ${TOO_LARGE}`);
    expect(simulator.requests).toEqual([]);
  });
});
