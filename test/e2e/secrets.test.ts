// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/model/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Secrets stay secret whatever the service echoes back (issue 10 §4): one redactor knows the key and
// every password, and every output of the tool passes through it.
const KEY = 'secret-api-key-5d1e9';
const PASSWORD = 'pa"ss wörd&=1';

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: KEY });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-secrets-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    'version: 1\nwebsites:\n  - domain: shop.example.com\n    privacy: password\n    password: ${SHOP_PASSWORD}\n',
  );
  env = { ...toolEnv(simulator, dir), SHOP_PASSWORD: PASSWORD, WEBSITES_SYNC_LOG_LEVEL: 'debug' };
});

afterEach(async () => {
  await simulator.close();
});

async function everythingWritten(...outputs: string[]): Promise<string> {
  const files = await readdir(dir);
  const contents = await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')));
  return [...outputs, ...contents].join('\n');
}

function expectNoSecret(text: string): void {
  for (const secret of [KEY, PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD)]) {
    expect(text).not.toContain(secret);
  }
  expect(text).not.toContain(new URLSearchParams({ p: PASSWORD }).toString().slice(2));
}

describe('secrets the service echoes', () => {
  it('a 422 quoting the password: reported, with the password masked in output and logs', async () => {
    simulator.setFaults({ script: ['none', 'echo-422'] });
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('The password "[redacted]" is not valid.');
    expectNoSecret(await everythingWritten(run.stdout, run.stderr));
  });

  it('a 422 quoting a 3-character password: masked too', async () => {
    simulator.setFaults({ script: ['none', 'echo-422'] });
    const run = await runCli(['--once'], { ...env, SHOP_PASSWORD: 'pw1' });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('The password "[redacted]" is not valid.');
    expect(await everythingWritten(run.stdout, run.stderr)).not.toMatch(/\bpw1\b/);
  });

  it('an HTML error page repeating the Authorization header and the body: masked', async () => {
    simulator.setFaults({
      script: ['echo-html', 'echo-html', 'echo-html', 'echo-html', 'echo-html', 'echo-html'],
    });
    const run = await runCli(['--once', '--dry-run'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Bearer [redacted]');
    expectNoSecret(await everythingWritten(run.stdout, run.stderr));
  });

  it('a saved plan and an export hold no secret', async () => {
    const saved = await runCli(['--once', '--dry-run', '--out', join(dir, 'plan.json')], env);
    expect(saved.code).toBe(0);
    await runCli(['--once'], env);
    const exported = await runCli(['export', '--out', join(dir, 'exported.yaml')], env);
    expect(exported.code).toBe(0);
    expectNoSecret(await everythingWritten(saved.stdout, saved.stderr, exported.stdout, exported.stderr));
  });
});

describe('a base URL with credentials', () => {
  it('is refused before anything is sent, stored or shown', async () => {
    const url = simulator.url.replace('http://', 'http://admin:url-secret-77@');
    const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_BASE_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /WEBSITES_SYNC_BASE_URL: "http:\/\/127\.0\.0\.1:\d+" carries credentials \(user:password@\)/,
    );
    const written = await everythingWritten(run.stdout, run.stderr);
    expect(written).not.toContain('url-secret-77');
    expect(written).not.toContain('admin');
    expect(simulator.requests).toEqual([]);
  });

  it('in any spelling the URL parser accepts, or none, is never shown', async () => {
    const port = new URL(simulator.url).port;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ['--base-url', `http:\\admin:url-secret-77@127.0.0.1:${port}`],
        {},
        /--base-url: "http:\/\/127\.0\.0\.1:\d+" carries credentials/,
      ],
      [
        [],
        { WEBSITES_SYNC_BASE_URL: `http:/\\admin:url-secret-77@127.0.0.1:${port}` },
        /carries credentials/,
      ],
      [
        ['--base-url', 'https://admin:url-secret-77@bad host'],
        {},
        /--base-url: "https:\/\/\*\*\*@bad host" is not a URL/,
      ],
      [
        ['--notify-url', 'http:\\admin:url-secret-77@hooks.example.com/x'],
        {},
        /--notify-url: "http:\/\/hooks\.example\.com\/x" must be https:\/\//,
      ],
      [
        ['--base-url', 'https://stats.example.test'],
        { HTTPS_PROXY: 'http://admin:url-secret-77@bad host:3128' },
        /HTTPS_PROXY: "http:\/\/\*\*\*@bad host:3128" is not a URL/,
      ],
      [
        ['--base-url', 'https://stats.example.test'],
        { https_proxy: 'admin:url-secret-77@proxy:3128' },
        /https_proxy: "admin:\*\*\*@proxy:3128" must start with http:\/\//,
      ],
    ];
    for (const [args, extra, message] of cases) {
      const run = await runCli(['--once', ...args], { ...env, ...extra });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(await everythingWritten(run.stdout, run.stderr)).not.toContain('url-secret-77');
    }
    expect(simulator.requests).toEqual([]);
  });

  it('a redirect to a URL with credentials: reported without them', async () => {
    const redirecting = createServer((_req, res) => {
      res.writeHead(302, { location: 'https://admin:url-secret-77@elsewhere.example.com/api' });
      res.end();
    });
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      const run = await runCli(['--once', '--dry-run'], { ...env, WEBSITES_SYNC_BASE_URL: url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('redirecting to https://elsewhere.example.com/api on another host');
      expect(await everythingWritten(run.stdout, run.stderr)).not.toContain('url-secret-77');
    } finally {
      redirecting.closeAllConnections();
      await new Promise((done) => redirecting.close(done));
    }
  });
});

describe('an API key that cannot travel in a header', () => {
  it('is refused where it is read, naming its source and the position, never the character', async () => {
    const keyFile = join(dir, 'key');
    await writeFile(keyFile, Buffer.from([0x6b, 0x6b, 0xff, 0x0a]));
    const cases: [Record<string, string>, string][] = [
      [
        { WEBSITES_SYNC_API_KEY: 'kk€' },
        'WEBSITES_SYNC_API_KEY: character 3 of the key is not printable ASCII',
      ],
      [
        { WEBSITES_SYNC_API_KEY: 'kk\x01x' },
        'WEBSITES_SYNC_API_KEY: character 3 of the key is not printable ASCII',
      ],
      [
        { WEBSITES_SYNC_API_KEY_FILE: keyFile },
        `WEBSITES_SYNC_API_KEY_FILE: ${keyFile}: character 3 of the key`,
      ],
    ];
    for (const [extra, message] of cases) {
      const run = await runCli(['--once'], { ...env, ...extra });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toContain('no answer');
      for (const character of ['€', '\x01', '\ufffd']) expect(run.stderr).not.toContain(character);
    }
    expect(simulator.requests).toEqual([]);
  });

  it('a key of megabytes (a wrong file named) is refused at once, as the key before a rotation is', async () => {
    const keyFile = join(dir, 'big');
    await writeFile(keyFile, 'k'.repeat(5_000_000));
    for (const name of ['WEBSITES_SYNC_API_KEY_FILE', 'WEBSITES_SYNC_PREVIOUS_API_KEY_FILE']) {
      const run = await runCli(['--once', '--dry-run'], { ...env, [name]: keyFile });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `${name}: ${keyFile} holds 5,000,000 bytes; at most 8,192 are allowed for an API key, one line of at most 4096 characters: is it the right file? It was not read further`,
      );
    }
    expect(simulator.requests).toEqual([]);
  });
});

describe('Redactor', () => {
  it('masks every spelling of a secret', () => {
    const redactor = new Redactor();
    redactor.add('a"b c&d');
    expect(redactor.redact('raw a"b c&d json a\\"b c&d url a%22b%20c%26d form a%22b+c%26d')).toBe(
      'raw [redacted] json [redacted] url [redacted] form [redacted]',
    );
  });

  it('masks a short secret where it stands alone, not inside longer words', () => {
    const redactor = new Redactor();
    redactor.add('ab1');
    redactor.add('é!');
    expect(redactor.redact('The password "ab1" is not valid. password=ab1&x; Xab1 ab12 tab1e')).toBe(
      'The password "[redacted]" is not valid. password=[redacted]&x; Xab1 ab12 tab1e',
    );
    expect(redactor.redact('{"password":"é!"} password=%C3%A9! née!')).toBe(
      '{"password":"[redacted]"} password=[redacted] née!',
    );
  });
});
