import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

const KEY = 'e2e-secret-api-key-7f3a';
const PASSWORD = 'e2e-secret-password-91bd';
const MANIFEST = `version: 1
websites:
  - domain: example.com
    privacy: public
    exclude_params: [utm_source]
  - domain: shop.example.com
    privacy: password
    password: \${SHOP_PASSWORD}
`;

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: KEY });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-e2e-'));
  await writeFile(join(dir, 'websites.yaml'), MANIFEST);
  env = { ...toolEnv(simulator, dir), SHOP_PASSWORD: PASSWORD };
});

afterEach(async () => {
  await simulator.close();
});

function expectNoSecret(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(PASSWORD);
  }
}

describe('websites-sync --once', () => {
  it('plans (exit 0, or 2 with --detailed-exitcode), applies, then reports no changes', async () => {
    const plan = await runCli(['--once', '--dry-run'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('+ example.com');
    expect(plan.stdout).toContain('password: (sensitive)');
    expect(plan.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete, 0 unchanged.');
    expect(simulator.listWebsites()).toEqual([]);

    const detailed = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(detailed.code).toBe(2);

    const apply = await runCli(['--once', '--log-level', 'debug'], env);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 2 created, 0 updated, 0 deleted, 0 failed.');
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['example.com', 'shop.example.com']);

    const after = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('No changes.');

    const state = await readFile(env.WEBSITES_SYNC_STATE_FILE as string, 'utf8');
    expectNoSecret(plan.stdout, plan.stderr, apply.stdout, apply.stderr, after.stdout, state);
  });

  it('prints a documented JSON plan with masked secrets', async () => {
    const result = await runCli(['--once', '--dry-run', '--output', 'json'], env);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      format_version: 2,
      tool: { name: 'websites-sync', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      base_url: simulator.url,
      manifest: env.WEBSITES_SYNC_MANIFEST,
      summary: { create: 2, update: 0, resend: 0, delete: 0, unchanged: 0 },
      changes: [
        {
          action: 'create',
          id: null,
          domain: 'example.com',
          fields: { privacy: { from: null, to: 'public', from_sensitive: false, to_sensitive: false } },
        },
        {
          action: 'create',
          id: null,
          domain: 'shop.example.com',
          // Typed: a secret is null with a flag beside it, never a placeholder string.
          fields: { password: { from: null, to: null, to_sensitive: true, from_unknown: false } },
        },
      ],
      warnings: [],
    });
    expectNoSecret(result.stdout, result.stderr);
  });

  it('exits 3 when the mass-delete guard refuses, and changes nothing', async () => {
    for (let i = 0; i < 12; i++) simulator.createWebsite({ domain: `old${i}.example.com` });
    const result = await runCli(['--once', '--prune'], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/mass-delete guard: 12 of 12 managed websites .* --force/);
    expect(simulator.listWebsites()).toHaveLength(12);
  });

  it('exits 1 with the service message when a website fails, after applying the others', async () => {
    simulator.addTakenDomain('example.com');
    const result = await runCli(['--once'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ create example.com');
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['shop.example.com']);
  });

  it('exits 1 on a refused key, naming the base URL, with the first requests only (no retry)', async () => {
    const result = await runCli(['--once'], { ...env, WEBSITES_SYNC_API_KEY: 'wrong-key' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${simulator.url} refused the API key (401`);
    // The listing and, beside it, the account's plan: each refused once.
    expect(simulator.requests.map((r) => `${r.path} ${r.status}`).sort()).toEqual([
      '/api/v1/account 401',
      '/api/v1/websites 401',
    ]);
    expect(result.stderr).not.toContain('wrong-key');
  });

  it('exits 1 on an invalid manifest without any request', async () => {
    await writeFile(
      env.WEBSITES_SYNC_MANIFEST as string,
      'version: 1\nwebsites:\n  - domain: example.com\n    exlude_ips: []\n',
    );
    const result = await runCli(['--once'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /websites\.yaml:4:5: error: websites\[0\]\.exlude_ips: .*did you mean "exclude_ips"/,
    );
    expect(simulator.requests).toHaveLength(0);
  });

  it.each([
    { args: ['--once', '--bogus'], message: /unknown option --bogus/ },
    { args: ['--once', '--base-url', 'http://stats.example.com'], message: /unencrypted/ },
    { args: ['--once', '--api-key=abc'], message: /never accepted on the command line/ },
  ])('exits 1 on bad usage: $args', async ({ args, message }) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  it('needs a base URL and a key', async () => {
    const noUrl = await runCli(['--once'], { ...env, WEBSITES_SYNC_BASE_URL: undefined });
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain('--base-url is required');
    const noKey = await runCli(['--once'], { ...env, WEBSITES_SYNC_API_KEY: undefined });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('no API key');
  });

  it('reads the key from --api-key-file', async () => {
    await writeFile(join(dir, 'key'), `${KEY}\n`);
    const result = await runCli(['--once', '--dry-run', '--api-key-file', join(dir, 'key')], {
      ...env,
      WEBSITES_SYNC_API_KEY: undefined,
    });
    expect(result.code).toBe(0);
  });
});

describe('websites-sync validate', () => {
  it('checks the manifest offline, with no base URL or key', async () => {
    const result = await runCli(['validate', '-f', env.WEBSITES_SYNC_MANIFEST as string], {
      SHOP_PASSWORD: PASSWORD,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('valid, 2 website(s)');
    expect(simulator.requests).toHaveLength(0);
  });

  it('reports every error at once with file:line:column', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: secret\n  - domain: b.example.com\n    exclude_ips: [not-an-ip]\n  - domain: www.c.example.com\n',
    );
    const result = await runCli(['validate', '-f', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:4:14: error: websites[0].privacy`);
    expect(result.stderr).toContain(`${file}:6:19: error: websites[1].exclude_ips[0]`);
    // Warnings are not hidden by the errors: the user fixes everything in one pass.
    expect(result.stderr).toContain(`${file}:7:13: warning: websites[2].domain: "www." removed`);
  });
});

describe('websites-sync validate: a manifest nested thousands of levels deep', () => {
  // Issue 10 §2: the fast reader recursed on a deep block list before any depth check ran.
  it.each([
    ['a block list', (i: number) => `${' '.repeat(i)}- \n`, 258],
    ['a block list of mappings', (i: number) => `${' '.repeat(2 * i)}- domain:\n`, 131],
  ])('%s is an error at its line with the limit, not a stack overflow', async (_name, line, at) => {
    const file = join(dir, 'deep.yaml');
    await writeFile(
      file,
      `version: 1\nwebsites:\n${Array.from({ length: 3000 }, (_, i) => line(i)).join('')}`,
    );
    const result = await runCli(['validate', '-f', file]);
    expect(result.stderr).not.toMatch(/internal error|Maximum call stack/);
    expect(result.stderr).toContain(
      `${file}:${at}:257: error: the manifest is nested too deeply here (more than 64 levels of brackets or 256 columns of indentation)`,
    );
    expect(result.code).toBe(1);
  });
});

describe('websites-sync --help / --version', () => {
  it('prints help and version', async () => {
    expect((await runCli(['--help'])).stdout).toContain('websites-sync --once --dry-run');
    expect((await runCli(['--version'])).stdout).toMatch(/^websites-sync \d+\.\d+\.\d+\n$/);
  });
});

describe('npm run demo', () => {
  it('exits non-zero when a step fails', async () => {
    const demo = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));
    const child = spawn(process.execPath, [demo], {
      env: { PATH: process.env.PATH, WEBSITES_SYNC_CONCURRENCY: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    const code = await new Promise((done) => child.on('close', done));
    expect(output).toContain('demo failed: the step "what would change?" exited 1');
    expect(code).toBe(1);
  });
});
