import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Websites with the same identity on one account (records stored before the www. rule, or typed in
// the web UI): records the service holds separately stay distinct, and none is ever deleted because
// the tool's identity disagrees with the service's.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-twins-'));
  env = toolEnv(simulator, dir);
  for (const [domain, privacy] of [
    ['www.legacy.example.com', 1],
    ['legacy.example.com', 0],
    ['www.only.example.com', 0],
    ['dup.example.com.', 1],
    ['DUP.example.com', 0],
    ['xn--bcher-kva.example', 0],
    ['bücher.example', 1],
  ] as const) {
    simulator.insertStored({ domain, privacy, email: false });
  }
});

afterEach(async () => {
  await simulator.close();
});

const ids = () => simulator.listWebsites().map((w) => w.id);

describe('records that share an identity', () => {
  it('export writes a manifest that validates and plans to no change, even with prune on', async () => {
    const manifest = join(dir, 'websites.yaml');
    const exported = await runCli(['export', '--out', manifest], env);
    expect(exported.code).toBe(0);

    const validate = await runCli(['validate'], env);
    expect(validate.stderr).not.toMatch(/error/);
    expect(validate.code).toBe(0);

    await runCli(['--once'], env); // write-only fields (exclude_params) are sent once
    const plan = await runCli(['--once', '--dry-run', '--prune', '--detailed-exitcode'], env);
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('DUP.example.com (id 5) is the same website as the listed dup.example.com');
  });

  it('a prune run listing one spelling of each deletes none of the others', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\nwebsites:\n  - domain: legacy.example.com\n    privacy: public\n  - domain: only.example.com\n    privacy: public\n  - domain: dup.example.com\n  - domain: bücher.example\n',
    );
    const before = ids();
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(0);
    expect(ids()).toEqual(before);
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(run.stdout).toMatch(
      /www\.legacy\.example\.com \(id 1\) is the same website as the listed legacy\.example\.com/,
    );
  });

  it('a manifest can keep the www. record beside its twin', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\nwebsites:\n  - domain: legacy.example.com\n    privacy: public\n  - domain: www.legacy.example.com\n    privacy: public\n',
    );
    const validate = await runCli(['validate'], env);
    expect(validate.code).toBe(0);
    const plan = await runCli(['--once', '--dry-run', '-o', 'json'], env);
    const changes = JSON.parse(plan.stdout).changes as { action: string; id: number; fields: object }[];
    // Each entry manages its own record: id 1 (www.) goes public, id 2 is public already (and its
    // exclude_params, never declared nor sent, is left as the service holds it); neither is deleted.
    expect(
      changes
        .filter((c) => c.id === 1 || c.id === 2)
        .map((c) => [c.action, c.id])
        .sort(),
    ).toEqual([['update', 1]]);
    expect(changes.find((c) => c.id === 1)?.fields).toHaveProperty('privacy');
    expect(changes.filter((c) => c.action === 'delete' && (c.id === 1 || c.id === 2))).toEqual([]);
  });
});
