import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// What a service may echo of a secret beyond its usual encodings (issue 10 §4): cut short, every
// character an HTML entity, an entity without its `;`, in capitals, in base64, URL-encoded twice.
const KEY = 'kkSECRETKEY123';
const PASSWORD = 'P&ss-w0rd<Sécret>';

const entities = (text: string, spell: (code: number) => string) =>
  [...text].map((char) => spell(char.codePointAt(0) ?? 0)).join('');

/** Each spelling, as the service quotes it, and what the outputs showed of it before. */
function variants(password: string, authorization: string): Record<string, string> {
  const key = authorization.replace(/^Bearer /, '');
  return {
    'the password cut by one character': password.slice(0, -1),
    'the password cut, then an ellipsis': `${password.slice(0, 12)}…`,
    'the password cut, then three dots': `${password.slice(0, 12)}...`,
    'the key cut by two characters': `Bearer ${key.slice(0, -2)}`,
    'the password in capitals': password.toUpperCase(),
    'the password in lower case': password.toLowerCase(),
    'the password in base64 (URL-safe)': Buffer.from(password).toString('base64url'),
    'the password in base64': Buffer.from(password).toString('base64'),
    'the key in base64': Buffer.from(key).toString('base64'),
    'the key in base64 without padding': Buffer.from(key).toString('base64').replace(/=+$/, ''),
    'the password URL-encoded twice': encodeURIComponent(encodeURIComponent(password)),
    'every character a decimal entity': entities(password, (code) => `&#${code};`),
    'every character a hex entity without ;': entities(password, (code) => `&#x${code.toString(16)}`),
    '&amp without ;': password.replace(/&/g, '&amp'),
  };
}

let server: Server;
let dir: string;
let echoed: Record<string, string> = {};

/** An empty account whose creates fail with a 422 quoting every variant, one per line. */
function echoingService(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      res.writeHead(req.method === 'GET' ? 200 : 422, { 'content-type': 'application/json' });
      if (req.method === 'GET') {
        res.end(JSON.stringify({ data: [], meta: { current_page: 1, last_page: 1, total: 0 } }));
        return;
      }
      const password = new URLSearchParams(body).get('password') ?? '';
      echoed = variants(password, req.headers.authorization ?? '');
      res.end(JSON.stringify({ message: 'invalid', errors: { domain: Object.values(echoed) } }));
    });
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-secrets-variants-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    `version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: "${PASSWORD}"\n`,
  );
  server = echoingService();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('a secret the service echoes cut short, entity-encoded, in capitals, in base64', () => {
  it.each(['pretty', 'json'])('is masked in every output (%s logs)', async (format) => {
    const run = await runCli(['--once', '--log-format', format], {
      WEBSITES_SYNC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      WEBSITES_SYNC_API_KEY: KEY,
      WEBSITES_SYNC_MANIFEST: join(dir, 'websites.yaml'),
      WEBSITES_SYNC_STATE_FILE: join(dir, 'state.json'),
      WEBSITES_SYNC_LOG_LEVEL: 'debug',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Bearer [redacted]');
    const files = (await readdir(dir)).filter((file) => file !== 'websites.yaml');
    const contents = await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')));
    const written = [run.stdout, run.stderr, ...contents].join('\n');
    expect(Object.keys(echoed)).toHaveLength(14);
    for (const [name, variant] of Object.entries(echoed)) expect(written, name).not.toContain(variant);
    for (const part of ['w0rd', 'W0RD', 'SECRETKEY']) expect(written).not.toContain(part);
  });
});
