import { chmod, link, mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SavedPlanFile as SavedPlan } from '../../src/saved-plan/index.js';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// The review workflow through the built binary: markdown plans, saved plans applied exactly or refused
// as stale, and export for onboarding. Every run is a real process against the in-process simulator.

const KEY = 'review-e2e-api-key-31c9';
const PASSWORD = 'review-e2e-password-8d2f';
const SEED: SeedWebsite[] = [
  { domain: 'keep.example.com' },
  { domain: 'edit.example.com' },
  { domain: 'old.example.com' },
];
// exclude_params declared once, so the converging run sends it and the state file records it: the
// reviewed manifest (which leaves it out) then plans only real changes.
const CONVERGED =
  'version: 1\ndefaults:\n  exclude_params: []\nwebsites:\n  - domain: keep.example.com\n  - domain: edit.example.com\n  - domain: old.example.com\n';
const REVIEWED = `version: 1
prune: true
websites:
  - domain: keep.example.com
  - domain: edit.example.com
    email: true
  - domain: shop.example.com
    privacy: password
    password: \${SHOP_PASSWORD}
`;

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

async function start(websites: SeedWebsite[]): Promise<void> {
  simulator = await startSimulator({ apiKey: KEY, websites });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-review-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn', SHOP_PASSWORD: PASSWORD };
}

afterEach(async () => {
  await simulator.close();
});

function writes(): string[] {
  return simulator.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

function idOf(domain: string): number {
  const website = simulator.listWebsites().find((w) => w.domain === domain);
  if (!website) throw new Error(`no ${domain} on the simulator`);
  return website.id;
}

describe('saved plans: --out, then --plan', () => {
  let planFile: string;

  beforeEach(async () => {
    await start(SEED);
    planFile = join(dir, 'plan.json');
    // Converge first, so the state file knows the write-only fields and the plan holds only real changes.
    await writeFile(env.WEBSITES_SYNC_MANIFEST as string, CONVERGED);
    const converged = await runCli(['--once'], env);
    expect(converged.code, converged.stderr).toBe(0);
    await writeFile(env.WEBSITES_SYNC_MANIFEST as string, REVIEWED);
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain(`Saved the plan to ${planFile}`);
    simulator.clearRequests();
  });

  it('saves the plan with what it depends on and no secret', async () => {
    const text = await readFile(planFile, 'utf8');
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(KEY);
    const file = JSON.parse(text);
    const held = { observed: 0, pending_delete: 0, protected: 0, traffic_refused: 0, unfit: 0 };
    expect(file.summary).toEqual({ create: 1, update: 1, resend: 0, delete: 1, unchanged: 1, ...held });
    expect(file.saved_plan).toMatchObject({
      version: 1,
      base_url: simulator.url,
      tool_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      desired: {
        sha256: expect.stringMatching(/^sha256:/),
        passwords: { 'shop.example.com': expect.any(String) },
      },
      remote: { absent: ['shop.example.com'], unlisted: ['old.example.com'] },
    });
    expect(Object.keys(file.saved_plan.remote.records).sort()).toEqual(
      [idOf('edit.example.com'), idOf('old.example.com')].map(String).sort(),
    );
  });

  it('applies exactly the saved operations when nothing changed', async () => {
    const [oldId, editId] = [idOf('old.example.com'), idOf('edit.example.com')];
    const apply = await runCli(['--once', '--plan', planFile], env);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 1 created, 1 updated, 1 deleted, 0 failed.');
    const sent = simulator.requests.filter((r) => r.method !== 'GET').map((r) => [r.method, r.path, r.body]);
    expect(sent).toEqual([
      ['DELETE', `/api/v1/websites/${oldId}`, undefined],
      ['PATCH', `/api/v1/websites/${editId}`, { email: '1' }],
      [
        'POST',
        '/api/v1/websites',
        { domain: 'shop.example.com', privacy: '2', password: PASSWORD, email: '0', exclude_bots: '1' },
      ],
    ]);
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
    for (const output of [apply.stdout, apply.stderr]) expect(output).not.toContain(PASSWORD);
  });

  it.each<{ name: string; change: () => Promise<unknown> | unknown; reason: RegExp; password?: string }>([
    {
      name: 'a remote record it updates changed',
      change: () => simulator.updateWebsite(idOf('edit.example.com'), { exclude_bots: false }),
      reason: /remote website edit\.example\.com \(id \d+\) changed since the plan/,
    },
    {
      name: 'a remote record it deletes was deleted',
      change: () => simulator.deleteWebsite(idOf('old.example.com')),
      reason: /remote website old\.example\.com \(id \d+\) was deleted since the plan/,
    },
    {
      name: 'a website it creates appeared',
      change: () => simulator.createWebsite({ domain: 'shop.example.com' }),
      reason: /remote website shop\.example\.com \(id \d+\) appeared since the plan/,
    },
    {
      name: 'the manifest changed',
      change: () =>
        writeFile(env.WEBSITES_SYNC_MANIFEST as string, REVIEWED.replace('email: true', 'email: false')),
      reason: /the manifest changed since the plan: edit\.example\.com changed/,
    },
    {
      name: 'the password in the environment differs from the planned one',
      change: () => undefined,
      password: 'a-different-password',
      reason: /the password of shop\.example\.com in the environment differs from the planned one/,
    },
  ])('refuses with "stale plan" and no write when $name', async ({ change, reason, password }) => {
    await change();
    simulator.clearRequests();
    const before = JSON.stringify(simulator.listWebsites());
    const result = await runCli(['--once', '--plan', planFile], {
      ...env,
      SHOP_PASSWORD: password ?? PASSWORD,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^stale plan: /m);
    expect(result.stderr).toMatch(reason);
    expect(writes()).toEqual([]);
    expect(JSON.stringify(simulator.listWebsites())).toBe(before);
    expect(result.stderr).not.toContain('a-different-password');
  });

  it('refuses a plan made for another base URL before sending any request', async () => {
    const result = await runCli(['--once', '--plan', planFile], {
      ...env,
      WEBSITES_SYNC_BASE_URL: simulator.url.replace('127.0.0.1', 'localhost'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^stale plan: .*\n {2}- the plan was made for http:\/\/127\.0\.0\.1:\d+, not/m,
    );
    expect(simulator.requests).toEqual([]);
  });

  it('writes the saved plan with mode 0600, also over an existing 0644 file', async () => {
    expect((await stat(planFile)).mode & 0o777).toBe(0o600);
    const again = join(dir, 'again.json');
    await writeFile(again, '{}', { mode: 0o644 });
    await chmod(again, 0o644);
    expect((await runCli(['--once', '--dry-run', '--out', again], env)).code).toBe(0);
    expect((await stat(again)).mode & 0o777).toBe(0o600);
  });

  it.each([
    [
      'a delete added by hand for a listed website',
      (file: SavedPlan) => {
        file.saved_plan.operations.push({
          action: 'delete',
          id: idOf('keep.example.com'),
          domain: 'keep.example.com',
          send: null,
        });
        file.changes.push({
          action: 'delete',
          id: idOf('keep.example.com'),
          domain: 'keep.example.com',
          fields: {},
          risks: [],
          risky: false,
          resend_only: false,
        });
      },
    ],
    [
      'a delete whose id was edited to another website',
      (file: SavedPlan) => {
        const op = file.saved_plan.operations.find((o) => o.action === 'delete')!;
        op.id = idOf('keep.example.com');
        file.changes.find((c) => c.action === 'delete')!.id = op.id;
      },
    ],
    [
      'force turned on, which would pass the mass-delete guard',
      (file: SavedPlan) => {
        file.saved_plan.force = true;
      },
    ],
    ['its signature removed', (file: SavedPlan & { signature?: string }) => delete file.signature],
  ])('executes nothing of a hand-edited plan, before any request: %s', async (_name, edit) => {
    const file = JSON.parse(await readFile(planFile, 'utf8')) as SavedPlan;
    edit(file);
    await writeFile(planFile, JSON.stringify(file));
    const before = JSON.stringify(simulator.listWebsites());
    const result = await runCli(['--once', '--plan', planFile], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^stale plan: /m);
    expect(result.stderr).toMatch(/the plan file (was changed after it was saved|is not signed)/);
    expect(simulator.requests).toEqual([]);
    expect(JSON.stringify(simulator.listWebsites())).toBe(before);
  });

  it('refuses a plan saved with another API key, before any request', async () => {
    const result = await runCli(['--once', '--plan', planFile], {
      ...env,
      WEBSITES_SYNC_API_KEY: 'another-key-of-the-same-account',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('saved with another API key');
    expect(simulator.requests).toEqual([]);
  });

  it('refuses --out onto the manifest, the state file or the backup file, by any path to them', async () => {
    const manifest = env.WEBSITES_SYNC_MANIFEST as string;
    const state = env.WEBSITES_SYNC_STATE_FILE as string;
    const backup = join(dir, 'backup.jsonl');
    await writeFile(backup, '{"kept":"a deleted website\'s settings"}\n');
    await mkdir(join(dir, 'sub'));
    await symlink(state, join(dir, 'state-link.json'));
    await symlink(join(dir, 'nowhere', '..', 'websites.yaml'), join(dir, 'manifest-link.yaml'));
    await link(manifest, join(dir, 'manifest-hard.yaml'));
    const targets: Array<[string, RegExp]> = [
      [manifest, /that is the manifest/],
      [state, /that is the state file/],
      [join(dir, 'sub', '..', 'state.json'), /that is the state file/],
      [join(dir, 'state-link.json'), /that is the state file/],
      [join(dir, 'manifest-hard.yaml'), /that is the manifest/],
      [backup, /that is the backup file/],
    ];
    const keyFile = join(dir, 'key.txt');
    await writeFile(keyFile, simulator.apiKey);
    await writeFile(`${state}.notified`, '{}\n');
    targets.push(
      [keyFile, /that is the API key file/],
      [`${state}.notified`, /record of notifications sent/],
    );
    const runEnv = { ...env, WEBSITES_SYNC_BACKUP_FILE: backup, WEBSITES_SYNC_API_KEY_FILE: keyFile };
    const kept = [manifest, state, backup, keyFile, `${state}.notified`];
    const before = await Promise.all(kept.map((path) => readFile(path, 'utf8')));
    for (const [target, what] of targets) {
      const result = await runCli(['--once', '--dry-run', '--out', target], runEnv);
      expect(result.code, target).toBe(1);
      expect(result.stderr).toMatch(what);
    }
    const exported = await runCli(['export', '--out', join(dir, 'state-link.json'), '--force'], runEnv);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/--out .*: that is the state file/);
    const overKey = await runCli(['export', '--out', keyFile, '--force'], runEnv);
    expect(overKey.code).toBe(1);
    expect(overKey.stderr).toMatch(/--out .*: that is the API key file/);
    expect(await Promise.all(kept.map((path) => readFile(path, 'utf8')))).toEqual(before);
    expect(simulator.requests).toEqual([]);
  });

  it('refuses a plan saved by a newer version in a format this one cannot read, naming that version', async () => {
    const file = JSON.parse(await readFile(planFile, 'utf8'));
    file.format_version = 3;
    file.tool.version = '99.0.0';
    file.saved_plan.version = 2;
    file.saved_plan.tool_version = '99.0.0';
    await writeFile(planFile, JSON.stringify(file));
    const result = await runCli(['--once', '--plan', planFile], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('made by websites-sync 99.0.0');
    expect(result.stderr).toContain('plan again with this version');
    expect(simulator.requests).toEqual([]);
  });

  it('prints nothing on stdout with --output json when no plan is computed (stale plan, invalid manifest)', async () => {
    await writeFile(env.WEBSITES_SYNC_MANIFEST as string, CONVERGED);
    const stale = await runCli(['--once', '--plan', planFile, '--output', 'json'], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^stale plan: /m);
    expect(stale.stdout).toBe('');
    await writeFile(
      env.WEBSITES_SYNC_MANIFEST as string,
      'version: 1\nwebsites:\n  - domain: a.com\n    email: maybe\n',
    );
    const invalid = await runCli(['--once', '--dry-run', '--output', 'json'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('websites[0].email');
    expect(invalid.stdout).toBe('');
  });

  it('refuses a file that is not a saved plan, and --out without --dry-run', async () => {
    await writeFile(join(dir, 'plain.json'), '{"format_version": 1, "changes": []}');
    const notSaved = await runCli(['--once', '--plan', join(dir, 'plain.json')], env);
    expect(notSaved.code).toBe(1);
    expect(notSaved.stderr).toContain('without "saved_plan"');
    const outWithoutDryRun = await runCli(['--once', '--out', planFile], env);
    expect(outWithoutDryRun.code).toBe(1);
    expect(outWithoutDryRun.stderr).toContain('--out: only with --dry-run');
    expect(simulator.requests).toEqual([]);
  });
});

describe('--output markdown', () => {
  it('prints a summary and a table per action, secrets masked', async () => {
    await start(SEED);
    await writeFile(env.WEBSITES_SYNC_MANIFEST as string, REVIEWED);
    const result = await runCli(['--once', '--dry-run', '--output', 'markdown'], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '### websites-sync plan',
      '',
      // keep.example.com: exclude_params never declared nor sent, so left as the service holds it.
      '**Plan: 1 to create, 1 to update, 1 to delete, 1 unchanged.**',
    ]);
    expect(result.stdout).toContain('exclude\\_params on 2 website(s)');
    expect(lines.filter((l) => l.startsWith('#### '))).toEqual([
      '#### Delete (1)',
      '#### Update (1)',
      '#### Create (1)',
    ]);
    expect(result.stdout).toContain('> **Risky changes (1)**');
    expect(result.stdout).toContain('password: (sensitive)');
    expect(result.stdout).not.toContain(PASSWORD);
  });
});

describe('websites-sync export', () => {
  const ACCOUNT: SeedWebsite[] = [
    { domain: 'example.com', privacy: 0, email: true },
    { domain: 'shop.example.com', privacy: 2, password: 'the-current-shop-password' },
    { domain: 'office.example.com', exclude_ips: ['203.0.113.7', '2001:db8::1'], exclude_bots: false },
    { domain: 'plain.example.com' },
  ];
  const SHOP_VARIABLE = 'WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM';

  beforeEach(async () => {
    await start(ACCOUNT);
  });

  it('writes a manifest that validates and plans no create and no delete, even with prune', async () => {
    const file = join(dir, 'exported.yaml');
    const exported = await runCli(['export', '--out', file], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(SHOP_VARIABLE);
    const text = await readFile(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./websites.schema.json');
    expect(text).toContain(`password: \${${SHOP_VARIABLE}}`);
    expect(text).toContain('# The service never returns passwords');
    expect(text).toContain('# exclude_params: not returned by the service, so not written here.');
    expect(text).not.toContain('the-current-shop-password');

    const withPassword = { ...env, [SHOP_VARIABLE]: 'the-current-shop-password' };
    const validate = await runCli(['validate', '-f', file], { [SHOP_VARIABLE]: 'x' });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('valid, 4 website(s)');

    simulator.clearRequests();
    const plan = await runCli(
      ['--once', '--dry-run', '--prune', '--output', 'json', '-f', file],
      withPassword,
    );
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.summary).toMatchObject({ create: 0, delete: 0 });
    // Readable settings round-trip exactly: only the password the file declares is (re)sent;
    // exclude_params, which export cannot write, is left as the service holds it and said so.
    const fields = new Set(json.changes.flatMap((c: { fields: object }) => Object.keys(c.fields)));
    expect([...fields].sort()).toEqual(['password']);
    expect(json.write_only_kept).toEqual({ exclude_params: 4 });
    expect(writes()).toEqual([]);
  });

  it('prints to stdout without --out, and never replaces a file unless forced', async () => {
    const stdout = await runCli(['export'], env);
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toContain(
      '  - domain: office.example.com\n    exclude_bots: false\n    exclude_ips:',
    );

    const file = join(dir, 'websites.yaml');
    await writeFile(file, 'version: 1\n');
    const refused = await runCli(['export', '--out', file], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('exists; choose another file, or add --force');
    expect(await readFile(file, 'utf8')).toBe('version: 1\n');
    expect((await runCli(['export', '--out', file, '--force'], env)).code).toBe(0);
    const withoutTime = (text: string) => text.replace(/ on \d{4}-\S+:$/m, '');
    expect(withoutTime(await readFile(file, 'utf8'))).toBe(withoutTime(stdout.stdout));
  });

  it('needs a base URL and a key', async () => {
    const result = await runCli(['export'], { ...env, WEBSITES_SYNC_API_KEY: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no API key');
  });
});

describe('a saved plan edited to prune', () => {
  it('deletes nothing when the file is edited to turn prune on and delete unlisted websites', async () => {
    await start([{ domain: 'keep.example.com' }, { domain: 'precious.example.com' }]);
    const planFile = join(dir, 'plan.json');
    await writeFile(
      env.WEBSITES_SYNC_MANIFEST as string,
      'version: 1\nwebsites:\n  - domain: keep.example.com\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect((await runCli(['--once', '--dry-run', '--out', planFile], env)).code).toBe(0);
    const file = JSON.parse(await readFile(planFile, 'utf8')) as SavedPlan;
    const id = idOf('precious.example.com');
    file.saved_plan.prune = true;
    file.saved_plan.force = true;
    file.saved_plan.remote.unlisted = ['precious.example.com'];
    file.saved_plan.operations.push({ action: 'delete', id, domain: 'precious.example.com', send: null });
    file.changes.push({
      action: 'delete',
      id,
      domain: 'precious.example.com',
      fields: {},
      risks: [],
      risky: false,
      resend_only: false,
    });
    await writeFile(planFile, JSON.stringify(file));
    simulator.clearRequests();
    const result = await runCli(['--once', '--plan', planFile], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the plan file was changed after it was saved');
    expect(writes()).toEqual([]);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('precious.example.com');
  });
});

describe('a password that is also a word of the plan', () => {
  it('is refused at --out, clearly, rather than saved as a plan that is stale for ever', async () => {
    await start(SEED);
    // The stats password of shop.example.com is "shop": masked in every output, so also in the
    // saved operations, which would then never match a fresh plan.
    env = { ...env, SHOP_PASSWORD: 'shop' };
    await writeFile(env.WEBSITES_SYNC_MANIFEST as string, REVIEWED);
    const planFile = join(dir, 'plan.json');
    await writeFile(planFile, '{"kept": "an earlier file"}\n');
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain(`--out: ${planFile}: the plan cannot be saved`);
    expect(saved.stderr).not.toContain('Saved the plan');
    expect(await readFile(planFile, 'utf8')).toBe('{"kept": "an earlier file"}\n');
    expect(writes()).toEqual([]);
  });
});

describe('a password that is a word of JSON itself ("true", "null", "1234")', () => {
  it.each(['true', 'null', '1234'])(
    '%s: the plan is saved, masked in its strings only, and applies',
    async (password) => {
      await start(SEED);
      // Masked in the saved plan's strings; its literals (`"prune": true`, `"id": null`) are no secret.
      env = { ...env, SHOP_PASSWORD: password };
      await writeFile(env.WEBSITES_SYNC_MANIFEST as string, REVIEWED);
      const planFile = join(dir, 'plan.json');
      const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.stderr).toContain(`Saved the plan to ${planFile}`);
      const file = JSON.parse(await readFile(planFile, 'utf8'));
      expect(file.saved_plan.prune).toBe(true);
      const applied = await runCli(['--once', '--plan', planFile], env);
      expect(applied.code, applied.stderr).toBe(0);
      expect(simulator.listWebsites().map((w) => w.domain)).toContain('shop.example.com');
    },
  );
});
