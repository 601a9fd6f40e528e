import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { appendFile, type FileHandle, mkdtemp, open, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  readWholeFile,
  readWholeFileSync,
  tooLargeMessage,
  type WholeFileSpec,
  wholeReadRefusal,
} from '../../src/model/index.js';

// The one rule of local files read whole (manifest, state, saved plan, seed, key files): a regular file,
// never read past its bound. The readers' own cases, through the CLI: test/e2e/file-size.test.ts.

const spec: WholeFileSpec = { holds: 'a word', maxBytes: 16 };
const NONBLOCK = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const handles: FileHandle[] = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
});

async function opened(path: string): Promise<FileHandle> {
  const handle = await open(path, NONBLOCK);
  handles.push(handle);
  return handle;
}

/** The bytes the handle's reads gave, in all. */
function bytesReadBy(handle: FileHandle): () => Promise<number> {
  const read = vi.spyOn(handle, 'read');
  return async () => {
    let total = 0;
    for (const result of read.mock.results)
      total += ((await result.value) as { bytesRead: number }).bytesRead;
    return total;
  };
}

async function fileOf(text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'websites-sync-whole-file-')), 'f');
  await writeFile(file, text);
  return file;
}

describe('readWholeFile', () => {
  it('reads a regular file of exactly the bound; one byte more is refused with its size', async () => {
    const file = await fileOf('x'.repeat(16));
    expect(await readWholeFile(await opened(file), spec)).toEqual({ bytes: Buffer.from('x'.repeat(16)) });
    await appendFile(file, 'x');
    expect(await readWholeFile(await opened(file), spec)).toEqual({ tooLarge: { size: 17 } });
  });

  it('a sparse file of a tebibyte is refused by the size it says, before a byte is read', async () => {
    const file = await fileOf('');
    await truncate(file, 2 ** 40);
    const handle = await opened(file);
    const read = vi.spyOn(handle, 'read');
    expect(await readWholeFile(handle, { holds: 'a manifest', maxBytes: 64 * 1024 * 1024 })).toEqual({
      tooLarge: { size: 2 ** 40 },
    });
    expect(read).not.toHaveBeenCalled();
  });

  it('a file that grows after its size was looked at is read no further than one byte past the bound', async () => {
    const file = await fileOf('x'.repeat(10));
    const handle = await opened(file);
    const before = await handle.stat();
    await appendFile(file, 'y'.repeat(10_000));
    vi.spyOn(handle, 'stat').mockResolvedValue(before);
    const total = bytesReadBy(handle);
    expect(await readWholeFile(handle, spec)).toEqual({ tooLarge: { size: undefined } });
    expect(await total()).toBe(17);
  });

  it.runIf(existsSync('/proc/self/status'))('a file that says 0 bytes but holds more (/proc)', async () => {
    expect(await readWholeFile(await opened('/proc/self/status'), spec)).toEqual({
      tooLarge: { size: undefined },
    });
  });

  it.runIf(process.platform !== 'win32')(
    'a FIFO and a device are refused as what they are, before a byte is read',
    async () => {
      const fifo = join(await mkdtemp(join(tmpdir(), 'websites-sync-whole-file-')), 'fifo');
      execFileSync('mkfifo', [fifo]);
      const pipe = await opened(fifo);
      const read = vi.spyOn(pipe, 'read');
      expect(await readWholeFile(pipe, spec)).toEqual({ notRegular: 'a FIFO' });
      expect(read).not.toHaveBeenCalled();
      expect(await readWholeFile(await opened('/dev/zero'), spec)).toEqual({
        notRegular: 'a character device',
      });
    },
  );

  it.runIf(process.platform !== 'win32')(
    'with `streams`, a device is read, but never past the bound (/dev/zero ends)',
    async () => {
      const handle = await opened('/dev/zero');
      const total = bytesReadBy(handle);
      expect(await readWholeFile(handle, { ...spec, streams: true })).toEqual({
        tooLarge: { size: undefined },
      });
      expect(await total()).toBe(17);
    },
  );
});

describe('readWholeFileSync', () => {
  it('the same rule: the bound, the size said, the kind', async () => {
    const file = await fileOf('x'.repeat(16));
    const read = (path: string) => {
      const fd = openSync(path, NONBLOCK);
      try {
        return readWholeFileSync(fd, spec);
      } finally {
        closeSync(fd);
      }
    };
    expect(read(file)).toEqual({ bytes: Buffer.from('x'.repeat(16)) });
    await truncate(file, 2 ** 40);
    expect(read(file)).toEqual({ tooLarge: { size: 2 ** 40 } });
    if (process.platform !== 'win32') expect(read('/dev/zero')).toEqual({ notRegular: 'a character device' });
  });
});

describe('what a refused file is told as', () => {
  it('names the file, what it holds, its size and the bound', () => {
    const plan: WholeFileSpec = {
      holds: 'a saved plan',
      maxBytes: 256 * 1024 * 1024,
      room: 'one of 100,000 changes is about 40 MiB',
    };
    expect(tooLargeMessage('plan.json', plan, 2 ** 32)).toBe(
      'plan.json holds 4,294,967,296 bytes; at most 268,435,456 (256 MiB) are allowed for a saved plan (one of 100,000 changes is about 40 MiB): is it the right file? It was not read further',
    );
    expect(tooLargeMessage('the file', spec, undefined)).toBe(
      'the file holds more than 16 bytes; at most 16 are allowed for a word: is it the right file? It was not read further',
    );
    expect(wholeReadRefusal('seed.json', { notRegular: 'a FIFO' }, spec)).toBe(
      'seed.json is a FIFO, not a regular file; give a regular file holding a word',
    );
    expect(wholeReadRefusal('seed', { notRegular: 'a directory' }, spec)).toBe(
      'seed is a directory; give a regular file holding a word',
    );
  });
});
