import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSmallFile } from '../../src/model/index.js';

const spec = { source: '--some-file', maxBytes: 16, holds: 'a word' };

describe('readSmallFile: the one bounded reader of the files taken whole', () => {
  it('reads a regular file of up to maxBytes; one byte more is refused with its size', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-small-file-'));
    const file = join(dir, 'f');
    await writeFile(file, 'x'.repeat(16));
    expect(readSmallFile(file, spec)).toEqual({ text: 'x'.repeat(16) });
    await writeFile(file, 'x'.repeat(17));
    expect(readSmallFile(file, spec)).toEqual({
      problem: `--some-file: ${file} holds 17 bytes; at most 16 are allowed for a word: is it the right file? It was not read further`,
    });
  });

  it.runIf(existsSync('/proc/self/status'))(
    'a file whose size says 0 but holds more (in /proc) is read no further than the bound',
    () => {
      expect(readSmallFile('/proc/self/status', spec)).toEqual({
        problem:
          '--some-file: /proc/self/status holds more than 16 bytes; at most 16 are allowed for a word: is it the right file? It was not read further',
      });
    },
  );

  it('a directory is named as what it is; a missing file by its error code', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-small-file-'));
    expect(readSmallFile(dir, spec)).toEqual({
      problem: `--some-file: ${dir} is a directory; give a regular file holding a word`,
    });
    expect(readSmallFile(join(dir, 'missing'), spec)).toEqual({
      problem: `--some-file: cannot read ${join(dir, 'missing')} (ENOENT)`,
    });
  });

  it.runIf(process.platform !== 'win32')(
    'a socket, which cannot even be opened, is named as one',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'websites-sync-small-file-'));
      const path = join(dir, 'sock');
      const server = createServer();
      await new Promise<void>((listening) => server.listen(path, listening));
      try {
        expect(readSmallFile(path, spec)).toEqual({
          problem: `--some-file: ${path} is a socket, not a regular file; give a regular file holding a word`,
        });
      } finally {
        await new Promise((closed) => server.close(closed));
      }
    },
  );
});
