import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/args.js';

describe('export options', () => {
  it('reads -o as the file to write, not as a plan format', () => {
    const config = parseConfig(['export', '-o', 'websites.yaml', '--base-url', 'https://s.example'], {});
    expect(config).toMatchObject({ command: 'export', outputFile: 'websites.yaml', output: 'text' });
  });

  it('takes --output-file and --force', () => {
    const config = parseConfig(['export', '--output-file=w.yaml', '--force'], {});
    expect(config).toMatchObject({ outputFile: 'w.yaml', force: true });
  });

  it('writes to stdout by default', () => {
    expect(parseConfig(['export'], {}).outputFile).toBeUndefined();
  });

  it.each([
    { argv: ['export', '--once'], message: /unknown option --once/ },
    {
      argv: ['export', '--output', 'json'],
      message: /unknown option --output/,
    },
    { argv: ['export', 'now'], message: /unknown command "now"/ },
  ])('rejects $argv', ({ argv, message }) => {
    expect(() => parseConfig(argv, {})).toThrow(message);
  });

  it('leaves -o meaning --output for the other commands', () => {
    expect(parseConfig(['--once', '-o', 'markdown'], {})).toMatchObject({
      output: 'markdown',
      outputFile: undefined,
    });
  });
});

describe('schema options', () => {
  it('takes export --schema with -o', () => {
    expect(parseConfig(['export', '-o', 'w.yaml', '--schema'], {})).toMatchObject({
      command: 'export',
      outputFile: 'w.yaml',
      withSchema: true,
    });
    expect(parseConfig(['export', '-o', 'w.yaml'], {}).withSchema).toBe(false);
  });

  it('refuses export --schema without -o, naming the schema command', () => {
    expect(() => parseConfig(['export', '--schema'], {})).toThrow(
      /websites-sync schema > websites.schema.json/,
    );
  });

  it('reads the schema command wherever it stands, with its own help', () => {
    expect(parseConfig(['schema'], {}).command).toBe('schema');
    expect(parseConfig(['schema', '--help'], {})).toMatchObject({ command: 'help', helpFor: 'schema' });
    expect(() => parseConfig(['schema', '--once'], {})).toThrow(/unknown option --once/);
  });
});
