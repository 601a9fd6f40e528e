import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/args.js';

describe('export options', () => {
  it('reads --out as the file to write, as --once --out does', () => {
    const config = parseConfig(['export', '--out', 'websites.yaml', '--base-url', 'https://s.example'], {});
    expect(config).toMatchObject({ command: 'export', outputFile: 'websites.yaml', output: 'text' });
  });

  it('takes --out and --force', () => {
    const config = parseConfig(['export', '--out=w.yaml', '--force'], {});
    expect(config).toMatchObject({ outputFile: 'w.yaml', force: true });
  });

  it('writes to stdout by default', () => {
    expect(parseConfig(['export'], {}).outputFile).toBeUndefined();
  });

  it.each([
    { argv: ['export', '--once'], message: /--once is not accepted by the export command; only by a run\./ },
    {
      // Named as typed: --output here, -o below.
      argv: ['export', '--output', 'json'],
      message: /export --output: "json" is not a format; export writes yaml/,
    },
    {
      // -o means a format everywhere: a file name there is not silently written as a file.
      argv: ['export', '-o', 'websites.yaml'],
      message:
        /export -o: "websites\.yaml" is not a format; export writes yaml only .* To write the manifest to a file: --out websites\.yaml/,
    },
    { argv: ['export', 'now'], message: /unknown command "now"/ },
  ])('rejects $argv', ({ argv, message }) => {
    expect(() => parseConfig(argv, {})).toThrow(message);
  });

  it('takes -o yaml, and -o means the format for every command', () => {
    expect(parseConfig(['export', '-o', 'yaml'], {}).outputFile).toBeUndefined();
    expect(parseConfig(['--once', '-o', 'markdown'], {})).toMatchObject({
      output: 'markdown',
      outputFile: undefined,
    });
  });
});

describe('schema options', () => {
  it('takes export --schema with --out', () => {
    expect(parseConfig(['export', '--out', 'w.yaml', '--schema'], {})).toMatchObject({
      command: 'export',
      outputFile: 'w.yaml',
      withSchema: true,
    });
    expect(parseConfig(['export', '--out', 'w.yaml'], {}).withSchema).toBe(false);
  });

  it('refuses export --schema without --out, naming the schema command', () => {
    expect(() => parseConfig(['export', '--schema'], {})).toThrow(
      /websites-sync schema > websites.schema.json/,
    );
  });

  it('reads the schema command wherever it stands, with its own help', () => {
    expect(parseConfig(['schema'], {}).command).toBe('schema');
    expect(parseConfig(['schema', '--help'], {})).toMatchObject({ command: 'help', helpFor: 'schema' });
    expect(() => parseConfig(['schema', '--once'], {})).toThrow(
      '--once is not accepted by the schema command; only by a run. See websites-sync schema --help.',
    );
  });
});
