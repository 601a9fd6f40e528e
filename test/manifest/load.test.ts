// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';

describe('loadManifest', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'websites-sync-manifest-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file and interpolates from the given environment', async () => {
    const file = join(dir, 'websites.yaml');
    await writeFile(file, '\uFEFFversion: 1\r\nwebsites:\r\n  - domain: ${SITE}\r\n');
    const result = await loadManifest(file, { SITE: 'example.com' });
    expect(result.problems).toEqual([]);
    expect(result.desired?.file).toBe(file);
    expect(result.desired?.websites.map((w) => [w.domain, w.location.line])).toEqual([['example.com', 3]]);
  });

  it.each([
    ['a missing file', 'missing.yaml', 'cannot read the manifest: the file does not exist'],
    ['a directory', '.', 'cannot read the manifest: it is a directory, not a file'],
  ])('reports %s as a problem, not a throw', async (_name, name, message) => {
    const file = join(dir, name);
    expect(await loadManifest(file, {})).toEqual({
      problems: [{ severity: 'error', file, line: 1, column: 1, field: '', message }],
    });
  });
});
