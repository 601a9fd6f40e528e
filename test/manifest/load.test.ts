// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifest, parseManifest } from '../../src/manifest/index.js';

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

describe('bytes that are not a manifest a parser can take', () => {
  it('reports invalid UTF-8 (a Latin-1 password) at its line, instead of sending replacement characters', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ws-utf8-'));
    const file = join(dir, 'websites.yaml');
    const latin1 = Buffer.from(
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: caf\xe9\n',
      'latin1',
    );
    await writeFile(file, latin1);
    const { desired, problems } = await loadManifest(file, {});
    expect(desired).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 5,
        column: 18,
        message: expect.stringMatching(/not valid UTF-8: byte 0xe9/),
      }),
    ]);
  });

  it('reports a manifest nested thousands of levels deep at its position, not a stack overflow', () => {
    const text = `version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_ips: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`;
    const { problems } = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 4,
        column: 82,
        message: expect.stringMatching(/nested too deeply/),
      }),
    ]);
  });

  it('reports block nesting thousands of levels deep too', () => {
    const deep = Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    const { problems } = parseManifest(`version: 1\n${deep}\n`, { file: 'websites.yaml', env: {} });
    expect(problems).toEqual([
      expect.objectContaining({ line: 259, message: expect.stringMatching(/nested too deeply/) }),
    ]);
  });
});
