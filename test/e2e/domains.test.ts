import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalDomain } from '../../src/model/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { wwwNames } from '../helpers/www-names.js';

// Domains as the service really stores them (issue 11, facts 1 and 2), from the built CLI.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'under_score.example.com', privacy: 0 }] });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-domains-'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

describe('domains the service canonicalises and accepts', () => {
  it('creates www.shop.www.example.net as the service stores it, then converges', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: www.shop.www.example.net\n  - domain: under_score.example.com\n    privacy: public\n',
    );
    const plan = await runCli(['--once', '--dry-run'], env);
    expect(plan.stdout).toContain('+ shop.example.net');
    expect(plan.stdout).toContain('the service stores www.shop.www.example.net as shop.example.net');

    const apply = await runCli(['--once'], env);
    expect(apply.code).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('shop.example.net');

    simulator.clearRequests();
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
    // Converged: the listing and the account's plan, nothing else.
    expect(simulator.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /api/v1/account',
      'GET /api/v1/websites',
    ]);
  });

  it('stores every generated www./scheme name as the plan predicts, and the next run is converged', async () => {
    // Distinct predictions only: two names stored as one domain are a manifest error of their own.
    const byDomain = new Map<string, string>();
    for (const name of ['www.wwww.ww.x-example.com', ...wwwNames(400, 7)]) {
      const result = canonicalDomain(name);
      if ('domain' in result && !byDomain.has(result.domain)) byDomain.set(result.domain, name);
    }
    const names = [...byDomain.values()].slice(0, 60);
    expect(names.length).toBe(60);
    const entries = names.map((name) => `  - domain: ${JSON.stringify(name)}\n`).join('');
    await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${entries}`);

    const apply = await runCli(['--once', '-o', 'json'], env);
    expect(apply.stderr).not.toContain('another account');
    expect(apply.code).toBe(0);
    const predicted = (JSON.parse(apply.stdout).changes as { action: string; domain: string }[])
      .filter((change) => change.action === 'create')
      .map((change) => change.domain);
    const stored = simulator.listWebsites().map((website) => website.domain);
    expect(stored.filter((domain) => domain !== 'under_score.example.com').sort()).toEqual(predicted.sort());
    expect(predicted).toContain('www.x-example.com');

    simulator.clearRequests();
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
    // Converged: the listing and the account's plan, nothing else.
    expect(simulator.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /api/v1/account',
      'GET /api/v1/websites',
    ]);
  });

  it('round-trips a website with an underscore: export, validate, then a plan with no change', async () => {
    const manifest = join(dir, 'websites.yaml');
    const exported = await runCli(['export', '--out', manifest], env);
    expect(exported.code).toBe(0);

    const validate = await runCli(['validate'], env);
    expect(validate.code).toBe(0);
    expect(validate.stdout + validate.stderr).toContain('unusual label "under_score"');

    await runCli(['--once'], env); // write-only fields are sent once
    const plan = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(plan.code).toBe(0);
  });

  it('round-trips names the service stores as they are (a path, a query, a scheme): no delete, no create', async () => {
    for (const domain of ['example.com/index.html', 'q?x.example.com', 'ftp://files.example.com', 'x.1.']) {
      simulator.createWebsite({ domain, privacy: 0 });
    }
    const manifest = join(dir, 'websites.yaml');
    expect((await runCli(['export', '--out', manifest], env)).code).toBe(0);

    const validate = await runCli(['validate'], env);
    expect(validate.stderr).not.toContain('error');
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain(
      'the service accepts "example.com/index.html" as a domain and stores it as written',
    );

    await runCli(['--once'], env); // write-only fields are sent once
    const plan = await runCli(['--once', '--dry-run', '--prune', '--detailed-exitcode'], env);
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });
});
