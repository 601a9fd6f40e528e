import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/args.js';
import { parseDuration } from '../../src/cli/duration.js';
import { requireService, usesTls } from '../../src/cli/service-config.js';

describe('parseConfig', () => {
  it('takes the command line over the environment over defaults', () => {
    const env = { WEBSITES_SYNC_BASE_URL: 'https://env.example', WEBSITES_SYNC_CONCURRENCY: '7' };
    const config = parseConfig(['--once', '--base-url', 'https://cli.example'], env);
    expect(config).toMatchObject({
      command: 'sync',
      once: true,
      baseUrl: 'https://cli.example',
      concurrency: 7,
    });
    expect(config.manifest).toBe('./websites.yaml');
  });

  it.each([
    { argv: ['--frobnicate'], message: /--frobnicate/ },
    { argv: ['--api-key', 'k'], message: /never accepted on the command line/ },
    { argv: ['--concurrency', '0'], message: /whole number from 1 to 64/ },
    { argv: ['--output', 'yaml'], message: /use text, json or markdown/ },
    { argv: ['--interval', 'soon'], message: /not a duration/ },
    { argv: ['apply'], message: /unknown command "apply"/ },
    { argv: ['valdiate'], message: /unknown command "valdiate"; did you mean "validate"\?/ },
    { argv: ['--prnue'], message: /unknown option --prnue; did you mean --prune\?/ },
    { argv: ['--once', '--detailed-exitcode'], message: /--detailed-exitcode: only with --dry-run/ },
    { argv: ['--once', '--listen', ':9090'], message: /--listen: only for the daemon/ },
    { argv: ['--once', '--dry-run', '--interval', '5m'], message: /--interval: only for the daemon/ },
  ])('rejects $argv', ({ argv, message }) => {
    expect(() => parseConfig(argv, {})).toThrow(message);
  });

  it("takes --leader-poll with --once: a --once run's heartbeat on a PostgreSQL state, as a replica's", () => {
    expect(parseConfig(['--once', '--leader-poll', '1s'], {}).leaderPollMs).toBe(1_000);
  });
});

describe('an invalid value from the environment', () => {
  it.each([
    [
      'WEBSITES_SYNC_CONCURRENCY',
      '0',
      'WEBSITES_SYNC_CONCURRENCY: "0" is not allowed; use a whole number from 1 to 64',
    ],
    ['WEBSITES_SYNC_INTERVAL', 'soon', 'WEBSITES_SYNC_INTERVAL: "soon" is not a duration'],
    ['WEBSITES_SYNC_RATE_WINDOW', '0s', 'WEBSITES_SYNC_RATE_WINDOW: "0s" is out of range'],
    ['WEBSITES_SYNC_DELETE_DELAY', '400d', 'WEBSITES_SYNC_DELETE_DELAY: "400d" is out of range'],
    ['WEBSITES_SYNC_RATE_BUDGET', '200', 'WEBSITES_SYNC_RATE_BUDGET: "200" is not a share'],
    ['WEBSITES_SYNC_LOG_LEVEL', 'loud', 'WEBSITES_SYNC_LOG_LEVEL: "loud" is not a level'],
    ['WEBSITES_SYNC_LOG_FORMAT', 'xml', 'WEBSITES_SYNC_LOG_FORMAT: "xml" is not a format'],
    [
      'WEBSITES_SYNC_NOTIFY_URL',
      'http://hooks.example.com',
      'WEBSITES_SYNC_NOTIFY_URL: "http://hooks.example.com" must be https://',
    ],
  ])('%s is named in the error, not an option the user never typed', (variable, value, message) => {
    expect(() => parseConfig([], { [variable]: value })).toThrow(message);
  });

  it('is named by the checks made after parsing too (the base URL, the listen address, key file)', () => {
    const config = parseConfig(['--once'], { WEBSITES_SYNC_BASE_URL: 'notaurl', WEBSITES_SYNC_API_KEY: 'k' });
    expect(config.sources).toMatchObject({ 'base-url': 'WEBSITES_SYNC_BASE_URL', listen: '--listen' });
    expect(() => requireService(config)).toThrow('WEBSITES_SYNC_BASE_URL: "notaurl" is not a URL');
  });

  it('a flag is named as typed: -o or --output', () => {
    expect(() => parseConfig(['--once', '-o', 'yaml'], {})).toThrow('-o: "yaml" is not a format');
    expect(() => parseConfig(['--once', '--output', 'yaml'], {})).toThrow('--output: "yaml" is not a format');
  });

  it('the option is named when the value came from the command line', () => {
    expect(() => parseConfig(['--concurrency', '0'], { WEBSITES_SYNC_CONCURRENCY: '4' })).toThrow(
      '--concurrency: "0" is not allowed',
    );
  });
});

describe('requireService', () => {
  const base = parseConfig(['--once'], { WEBSITES_SYNC_API_KEY: 'k' });

  it.each([
    { baseUrl: undefined, message: /--base-url is required/ },
    { baseUrl: 'http://stats.example.com', message: /unencrypted/ },
    { baseUrl: 'ftp://stats.example.com', message: /must start with https/ },
  ])('refuses $baseUrl', ({ baseUrl, message }) => {
    expect(() => requireService({ ...base, baseUrl })).toThrow(message);
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080'])(
    'allows loopback %s',
    (url) => {
      expect(requireService({ ...base, baseUrl: url }).baseUrl).toBe(url);
    },
  );

  it('allows plain http elsewhere only when asked', () => {
    expect(requireService({ ...base, baseUrl: 'http://10.1.2.3', allowInsecureHttp: true }).baseUrl).toBe(
      'http://10.1.2.3',
    );
  });

  it('needs a key', () => {
    expect(() => requireService({ ...base, baseUrl: 'https://s.example', apiKey: undefined })).toThrow(
      /no API key/,
    );
  });
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text, '--delete-delay')).toBe(ms);
  });

  // A timer longer than 2^31-1 ms overflows and fires every millisecond (1,300 list requests in 5 s).
  it.each([
    ['720h', '--interval', '"720h" is out of range; use a duration from 1s to 7d'],
    ['10ms', '--interval', '"10ms" is out of range; use a duration from 1s to 7d'],
    ['30d', '--timeout', '"30d" is out of range; use a duration from 100ms to 10m'],
    ['0', '--timeout', '"0" is out of range; use a duration from 100ms to 10m'],
    ['soon', '--interval', '"soon" is not a duration'],
  ] as const)('refuses %s for %s', (text, option, message) => {
    expect(() => parseDuration(text, option)).toThrow(`${option}: ${message}`);
  });
});

describe('the API key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ws-key-'));
  const keyFile = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const service = (env: Record<string, string>) =>
    requireService(parseConfig(['--once', '--base-url', 'https://s.example'], env));

  it('a key file of two lines is named as such, not reported later as "no answer from the service"', () => {
    const file = keyFile('two-lines', 'key-one\nkey-two\n');
    expect(() => service({ WEBSITES_SYNC_API_KEY_FILE: file })).toThrow(
      `WEBSITES_SYNC_API_KEY_FILE: ${file} holds 2 lines; it must hold only the API key, on one line`,
    );
  });

  it('the key file wins over WEBSITES_SYNC_API_KEY, and says so', () => {
    const file = keyFile('key', 'from-file\n');
    expect(service({ WEBSITES_SYNC_API_KEY_FILE: file, WEBSITES_SYNC_API_KEY: 'from-env' })).toMatchObject({
      apiKey: 'from-file',
      notice: `both WEBSITES_SYNC_API_KEY and the key file ${file} are set; the key file wins`,
    });
  });

  it('is not read by commands that do not talk to the service (validate)', () => {
    const config = parseConfig(['validate'], { WEBSITES_SYNC_API_KEY_FILE: join(dir, 'missing') });
    expect(config.command).toBe('validate');
  });
});

describe('commands and options in any order', () => {
  it('takes global options before the sub-command', () => {
    expect(parseConfig(['-f', 'x.yaml', 'validate'], {})).toMatchObject({
      command: 'validate',
      manifest: 'x.yaml',
    });
    expect(parseConfig(['--manifest', 'validate.yaml', 'validate'], {})).toMatchObject({
      command: 'validate',
      manifest: 'validate.yaml',
    });
  });

  it('shows the help of the command asked about', () => {
    expect(parseConfig(['validate', '--help'], {})).toMatchObject({ command: 'help', helpFor: 'validate' });
  });
});

describe('usesTls: whether a run loads node:tls before it sets its V8 options', () => {
  it('is true for an https:// service, however the URL is spelled', () => {
    expect(usesTls('https://stats.example.com', {})).toBe(true);
    expect(usesTls('HTTPS://stats.example.com', {})).toBe(true);
    expect(usesTls(' https://stats.example.com', {})).toBe(true);
  });

  it('is true for an http:// service reached through an https:// proxy, the one http_proxy names first', () => {
    const proxy = { HTTP_PROXY: 'https://proxy.example.com:3128' };
    expect(usesTls('http://stats.example.com', proxy)).toBe(true);
    expect(
      usesTls('http://stats.example.com', { ...proxy, http_proxy: 'http://proxy.example.com:3128' }),
    ).toBe(false);
    // HTTPS_PROXY is for https:// services only.
    expect(usesTls('http://stats.example.com', { HTTPS_PROXY: 'https://proxy.example.com:3128' })).toBe(
      false,
    );
  });

  it('is false for a service on this machine, which no proxy carries, and for no service', () => {
    expect(usesTls('http://127.0.0.1:8080', { HTTP_PROXY: 'https://proxy.example.com:3128' })).toBe(false);
    expect(usesTls(undefined, {})).toBe(false);
    expect(usesTls('not a url', {})).toBe(false);
  });
});
