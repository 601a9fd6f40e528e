import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/args.js';
import { helpFor } from '../../src/cli/help.js';
import { OPTION_TABLE, type OptionSpec } from '../../src/cli/options.js';
import { MAX_API_KEY_FILE_BYTES } from '../../src/service/api-key.js';

// Issue 12 §5 / 15 §4: every option is described once (options.ts); parsing, the environment,
// defaults, which commands accept it and --help all come from that table, and the docs agree.
const table = Object.entries(OPTION_TABLE) as Array<[string, OptionSpec]>;

describe('the options table', () => {
  it("puts every option in the help of each command that accepts it, and in no other command's", () => {
    for (const command of ['sync', 'validate', 'export', 'restore'] as const) {
      const help = helpFor(command === 'sync' ? undefined : command);
      for (const [name, spec] of table) {
        // The flag column only: descriptions mention other options.
        const listed = new RegExp(`^ {2}(-\\w, | {4})--${name}\\b`, 'm').test(help);
        if (spec.commands.includes(command)) expect(listed, `${command} --help lists --${name}`).toBe(true);
        else if (command !== 'sync') expect(listed, `${command} --help does not list --${name}`).toBe(false);
      }
    }
  });

  it('says the bound of the key files as the reader applies it', () => {
    for (const name of ['api-key-file', 'previous-api-key-file'] as const) {
      expect(OPTION_TABLE[name].help).toContain(`a regular file of at most ${MAX_API_KEY_FILE_BYTES} bytes`);
    }
  });

  it('refuses an option the command does not take, and does not read its variable', () => {
    expect(() => parseConfig(['validate', '--once'], {})).toThrow(
      '--once is not accepted by the validate command; only by a run.',
    );
    expect(() => parseConfig(['restore', '--concurrency', '2'], {})).toThrow(
      '--concurrency is not accepted by the restore command; only by a run and export.',
    );
    // validate needs no concurrency: a bad variable of a run does not stop it.
    expect(parseConfig(['validate'], { WEBSITES_SYNC_CONCURRENCY: 'lots' }).command).toBe('validate');
    expect(() => parseConfig(['--once'], { WEBSITES_SYNC_CONCURRENCY: 'lots' })).toThrow(
      'WEBSITES_SYNC_CONCURRENCY: "lots" is not allowed',
    );
  });

  it('takes each default from the table, read like a given value', () => {
    const config = parseConfig(['--once'], {});
    expect(config).toMatchObject({
      manifest: OPTION_TABLE.manifest.default,
      stateFile: './.websites-sync-state.json',
      concurrency: Number(OPTION_TABLE.concurrency.default),
      intervalMs: 5 * 60_000,
      timeoutMs: 30_000,
      rateWindowMs: 60_000,
    });
  });

  // Issue 19 §8: a run started from another folder (`-f acct/websites.yaml`) finds the manifest's state.
  it('puts the default state file beside the manifest, and says so in --help; a given one is as given', () => {
    const stateOf = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
      parseConfig(['--once', ...argv], env).stateFile;
    expect(stateOf(['-f', 'acct/websites.yaml'])).toBe('acct/.websites-sync-state.json');
    expect(stateOf([], { WEBSITES_SYNC_MANIFEST: '/etc/ws/websites.yaml' })).toBe(
      '/etc/ws/.websites-sync-state.json',
    );
    expect(stateOf(['-f', 'acct/websites.yaml', '--state-file', 's.json'])).toBe('s.json');
    expect(stateOf(['-f', 'acct/websites.yaml'], { WEBSITES_SYNC_STATE_FILE: 's.json' })).toBe('s.json');
    for (const command of [['state', 'show'], ['restore']]) {
      expect(parseConfig([...command, '-f', 'acct/websites.yaml'], {}).stateFile).toBe(
        'acct/.websites-sync-state.json',
      );
    }
    expect(helpFor(undefined).replace(/\s+/g, ' ')).toContain(
      'a path given is relative to the current directory (WEBSITES_SYNC_STATE_FILE; default .websites-sync-state.json beside the manifest (-f: a run, state and restore); export, which takes no manifest: in the current directory)',
    );
  });

  it('gives one frozen settings object, with the part each stage takes as it is', () => {
    const config = parseConfig(
      ['--once', '--prune', '--concurrency', '8', '--state-file', 's.json', '--timeout', '5s'],
      {},
    );
    expect(config.run).toMatchObject({ prune: true, concurrency: 8, dryRun: false });
    expect(config.state).toBe('s.json');
    expect(config.connection).toEqual({ timeoutMs: 5_000, rateWindowMs: 60_000, concurrency: 8 });
    expect(Object.isFrozen(config) && Object.isFrozen(config.run) && Object.isFrozen(config.connection)).toBe(
      true,
    );
    expect(() => {
      (config as { prune: boolean }).prune = false;
    }).toThrow(TypeError);
  });

  it("matches the docs' options table: every option with its environment variable", () => {
    const section = readFileSync(new URL('../../docs/reference/options.md', import.meta.url), 'utf8');
    for (const [name, spec] of table) {
      if (['help', 'version', 'schema'].includes(name)) continue;
      const flag = new RegExp(`--${name}[ \`]`);
      const row = section
        .split('\n')
        .find((line) => line.startsWith('|') && flag.test(line.split('|')[1] ?? ''));
      expect(row, `docs row for --${name}`).toBeDefined();
      if (spec.env) expect(row, `docs row for --${name} names ${spec.env}`).toContain(spec.env);
    }
  });
});
