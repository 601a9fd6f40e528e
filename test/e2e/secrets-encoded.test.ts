import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';

// Secrets stay secret in whatever spelling the service echoes them (issue 10 §4): an HTML error page
// escapes them (`&amp;`, `&#039;`), an excerpt folds their whitespace and is cut to 120 characters.
const KEY = 'key&with<amp>';
const PASSWORDS: Record<string, string> = {
  'tab.example.com': 'tab\tbed-secret',
  'amp.example.com': 'amp&er<sand>x',
  'space.example.com': 'dbl  space-secret',
  'quote.example.com': `quo"te'secret`,
  'html-cut.example.com': 'Tr0ub4dor-and-3',
  'json-cut.example.com': 'Correct-Horse-9',
};
/** What the outputs showed of them before (escaped, folded, the start of a cut one). */
const LEAKS = [
  'key&amp;with',
  'bed-secret',
  'er&lt;sand',
  'space-secret',
  'te&#039;secret',
  "te'secret",
  'Tr0ub4',
  'Correc',
];

// Laravel's e() (htmlspecialchars with ENT_QUOTES).
const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');

let server: Server;
let dir: string;

/** A service whose every update fails, answering with the password and the Authorization header. */
function echoingService(): Server {
  const domains = Object.keys(PASSWORDS);
  const records = domains.map((domain, i) => ({ id: i + 1, domain, privacy: 1, email: 0, exclude_bots: 1 }));
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ data: records, meta: { current_page: 1, last_page: 1, total: records.length } }),
        );
        return;
      }
      const id = Number(req.url?.split('/').pop());
      const password = new URLSearchParams(body).get('password') ?? '';
      if (domains[id - 1] === 'json-cut.example.com') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: `${'x'.repeat(100)}${password}` }));
        return;
      }
      const shown =
        domains[id - 1] === 'html-cut.example.com'
          ? `${'x'.repeat(105)} ${escapeHtml(password)}`
          : `<p>${escapeHtml(password)}</p><pre>Authorization: ${escapeHtml(req.headers.authorization ?? '')}</pre>`;
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end(`<html><head><title>Bad</title></head><body>${shown}</body></html>`);
    });
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-secrets-encoded-'));
  const websites = Object.entries(PASSWORDS).map(
    ([domain, password]) =>
      `  - domain: ${domain}\n    privacy: password\n    password: ${JSON.stringify(password)}\n`,
  );
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${websites.join('')}`);
  server = echoingService();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('secrets the service echoes in another spelling', () => {
  it('HTML-escaped, whitespace-folded or cut in an excerpt: masked in output and logs', async () => {
    const run = await runCli(['--once', '--log-format', 'json'], {
      WEBSITES_SYNC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      WEBSITES_SYNC_API_KEY: KEY,
      WEBSITES_SYNC_MANIFEST: join(dir, 'websites.yaml'),
      WEBSITES_SYNC_STATE_FILE: join(dir, 'state.json'),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Authorization: Bearer [redacted]');
    expect(run.stderr).toContain(`${'x'.repeat(100)} [redacted]`);
    // Every file the tool wrote (the state file, its backups), not the manifest.
    const files = (await readdir(dir)).filter((file) => file !== 'websites.yaml');
    const contents = await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')));
    const written = [run.stdout, run.stderr, ...contents].join('\n');
    for (const leak of LEAKS) expect(written).not.toContain(leak);
  });
});

describe('Redactor spellings', () => {
  it('masks a secret HTML-escaped, JSON-escaped (once or twice), URL-encoded or with whitespace folded', () => {
    const redactor = new Redactor();
    redactor.add(`a"b'c&d<é>\te  f\\g`);
    const spellings = [
      'a&quot;b&#039;c&amp;d&lt;é&gt;\te  f\\g',
      'a&#34;b&#x27;c&#38;d&#x3C;&#233;&#X3e; e f\\g',
      String.raw`a\"b'c&d<\u00e9>\te  f\\g`,
      String.raw`a\\\"b\u0027c\u0026d\u003c\u00E9>\\te  f\\\\g`,
      'a%22b%27c%26d%3C%C3%A9%3E%09e++f%5Cg',
      'a"b\'c&d<é> e f\\g',
    ];
    for (const spelling of spellings) {
      expect(redactor.redact(`<${spelling}>`)).toBe('<[redacted]>');
    }
  });

  it('stays quick on long runs of spaces and backslashes next to a secret', () => {
    const redactor = new Redactor();
    redactor.add('a b"c\\d');
    const text = `a${' '.repeat(50_000)}\\${'\\'.repeat(50_000)}"`;
    expect(redactor.redact(text)).toBe(text);
  });
});
