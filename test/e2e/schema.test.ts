// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// The editor schema from the built CLI: `websites-sync schema > websites.schema.json` needs nothing but
// the binary, and `export --out FILE --schema` puts it where the exported manifest's first line points.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

const committed = () => readFile(new URL('../../schema/websites.schema.json', import.meta.url), 'utf8');

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-schema-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function compile(text: string) {
  const ajv = new Ajv2020({ strict: true });
  ajv.addKeyword({ keyword: 'patternErrorMessage', schemaType: 'string' });
  return ajv.compile(JSON.parse(text));
}

describe('websites-sync schema', () => {
  it('prints the shipped JSON Schema with no key, base URL or manifest', async () => {
    // A key file that does not exist proves the command never reads one.
    const result = await runCli(['schema'], { WEBSITES_SYNC_API_KEY_FILE: join(dir, 'missing') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(await committed());
  });

  it('gives a schema that takes ${…} where validate does and flags a bad IP address', async () => {
    const schema = compile((await runCli(['schema'])).stdout);
    const manifest = (line: string) =>
      parse(`version: 1\nwebsites:\n  - domain: example.com\n    ${line}\n`) as unknown;
    expect(schema(manifest('privacy: ${PRIV:-public}'))).toBe(true);
    expect(schema(manifest('exclude_ips: [203.0.113.300]'))).toBe(false);

    const file = join(dir, 'websites.yaml');
    await writeFile(file, 'version: 1\nwebsites:\n  - domain: example.com\n    privacy: ${PRIV:-public}\n');
    expect((await runCli(['validate', '-f', file])).code).toBe(0);
  });

  it('has its own help, and takes no other option', async () => {
    const help = await runCli(['schema', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('websites-sync schema > websites.schema.json');
    expect(help.stdout).toContain('$schema=./websites.schema.json');

    const bad = await runCli(['schema', '-f', 'websites.yaml']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      '-f (--manifest) is not accepted by the schema command; only by a run, validate, state and restore. See websites-sync schema --help.',
    );
  });

  it('is suggested for a mistyped command and listed in the help', async () => {
    const typo = await runCli(['-f', 'x.yaml', 'shcema']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('did you mean "schema"?');
    expect((await runCli(['--help'])).stdout).toContain('websites-sync schema');
  });
});

describe('websites-sync export --schema', () => {
  let simulator: Simulator;
  let env: Record<string, string>;

  beforeEach(async () => {
    simulator = await startSimulator({ apiKey: 'k', websites: [{ domain: 'example.com', privacy: 0 }] });
    env = toolEnv(simulator, dir);
  });

  afterEach(async () => {
    await simulator.close();
  });

  it('writes websites.schema.json beside the manifest its first line points at', async () => {
    const file = join(dir, 'exported.yaml');
    const result = await runCli(['export', '--out', file, '--schema'], env);
    expect(result.code, result.stderr).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./websites.schema.json');
    const schemaText = await readFile(join(dir, 'websites.schema.json'), 'utf8');
    expect(schemaText).toBe(await committed());
    expect(compile(schemaText)(parse(text))).toBe(true);
    expect(result.stderr).toContain('websites.schema.json');
  });

  it('updates an older schema of ours, and replaces another file of that name only with --force', async () => {
    const schemaFile = join(dir, 'websites.schema.json');
    await writeFile(schemaFile, '{"$id": "urn:websites-sync:manifest:v1", "old": true}\n');
    const updated = await runCli(['export', '--out', join(dir, 'a.yaml'), '--schema'], env);
    expect(updated.code, updated.stderr).toBe(0);
    expect(await readFile(schemaFile, 'utf8')).toBe(await committed());

    await writeFile(schemaFile, '{"someone": "else"}\n');
    simulator.clearRequests();
    const refused = await runCli(['export', '--out', join(dir, 'b.yaml'), '--schema'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not a websites-sync schema');
    // Refused before anything is read or written.
    expect(simulator.requests).toEqual([]);
    await expect(stat(join(dir, 'b.yaml'))).rejects.toThrow();
    expect(await readFile(schemaFile, 'utf8')).toBe('{"someone": "else"}\n');

    const forced = await runCli(['export', '--out', join(dir, 'b.yaml'), '--schema', '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(schemaFile, 'utf8')).toBe(await committed());
  });

  it('refuses a FIFO where the manifest or the schema goes, or a manifest there without --force, before any request', async () => {
    // A write to a FIFO waits for a reader for ever; the read of a schema there, for a writer.
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    execFileSync('mkfifo', [join(dir, 'websites.schema.json')]);
    await writeFile(join(dir, 'in-use.yaml'), 'version: 1\n');
    const runs = [
      [
        ['export', '--out', fifo, '--force'],
        `--out: ${fifo} is a FIFO, not a regular file; give the path of a regular file`,
      ],
      [
        ['export', '--out', join(dir, 'a.yaml'), '--schema', '--force'],
        `--schema: ${join(dir, 'websites.schema.json')} is a FIFO, not a regular file`,
      ],
      [
        ['export', '--out', join(dir, 'in-use.yaml')],
        `--out: ${join(dir, 'in-use.yaml')} exists; choose another file, or add --force to replace it`,
      ],
    ] as const;
    for (const [args, message] of runs) {
      const result = await runCli([...args], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
    }
    expect(simulator.requests).toEqual([]);
    await expect(stat(join(dir, 'a.yaml'))).rejects.toThrow();
    expect(await readFile(join(dir, 'in-use.yaml'), 'utf8')).toBe('version: 1\n');
  });

  it('needs -o: a schema on stdout is the schema command', async () => {
    const result = await runCli(['export', '--schema'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('websites-sync schema > websites.schema.json');
  });
});
