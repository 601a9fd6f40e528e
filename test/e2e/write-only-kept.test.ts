import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 19 §10: the service never returns exclude_params. Adopting an account the usual way (export,
// then a plan and an apply) must not wipe the values it holds; a value the manifest declares replaces
// it, and the plan says so plainly.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({
    websites: [
      { domain: 'a.example.com', exclude_params: ['utm_source'] },
      { domain: 'b.example.com', exclude_params: ['fbclid', 'gclid'] },
    ],
  });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-write-only-'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

const held = () => simulator.listWebsites().map((w) => [w.domain, w.exclude_params]);

describe('write-only fields the manifest does not declare', () => {
  it('export, plan, apply: the values the account holds stay, and the plan says why once', async () => {
    const exported = await runCli(['export', '--out', join(dir, 'websites.yaml')], env);
    expect(exported.code).toBe(0);
    const plan = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('will be sent');
    expect(plan.stdout).toContain(
      'Note: Not declared and never sent by websites-sync, so left as the service holds them (it does not show them): exclude_params on 2 website(s); declare a value in the manifest to set it.',
    );
    const apply = await runCli(['--once'], env);
    expect(apply.code).toBe(0);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(held()).toEqual([
      ['a.example.com', 'utm_source'],
      ['b.example.com', 'fbclid\ngclid'],
    ]);
  });

  it('a declared value replaces what the service holds, and the plan says it does', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: [ref]\n  - domain: b.example.com\n',
    );
    const plan = await runCli(['--once', '--dry-run'], env);
    expect(plan.stdout).toContain(
      'exclude_params: [ref]  (will be sent, replacing a value the service does not show; --adopt records it instead)',
    );
    expect(plan.stdout).toContain('exclude_params on 1 website(s)');
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(held()).toEqual([
      ['a.example.com', 'ref'],
      ['b.example.com', 'fbclid\ngclid'],
    ]);
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
  });

  it('a create that finds the website on the account already leaves its unseen values alone too', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: a.example.com\n    email: true\n',
    );
    // The listing misses a.example.com: the store answers "already taken" and the lookup finds it.
    const empty = { data: [], meta: { current_page: 1, last_page: 1, total: 0 } };
    simulator.setFaults({ script: ['given-body'], givenBody: empty });
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(0);
    const patch = simulator.requests.find((r) => r.method === 'PATCH');
    expect(patch?.body).toHaveProperty('email', '1');
    expect(patch?.body).not.toHaveProperty('exclude_params');
    expect(held()[0]).toEqual(['a.example.com', 'utm_source']);
  });
});
