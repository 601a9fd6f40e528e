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
