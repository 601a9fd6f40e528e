import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 19 §4: records that differ only in case (`Shop.example.com`, stored before the service
// lower-cased names or typed in its web UI, beside `shop.example.com`) are two websites, not a listing
// that keeps changing: both are kept, neither is pruned, and the plan says which one the entry manages.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({
    defaultPerPage: 10,
    websites: [
      { domain: 'Shop.example.com', privacy: 1, stored_as_written: true },
      { domain: 'other.example.com', privacy: 1 },
      { domain: 'shop.example.com', privacy: 1 },
      { domain: 'SOLO.example.com', privacy: 1, stored_as_written: true },
      { domain: 'solo.example.com', privacy: 1, stored_as_written: true },
    ],
  });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-case-twins-'));
  env = toolEnv(simulator, dir);
});

afterEach(async () => {
  await simulator.close();
});

const domains = () => simulator.listWebsites().map((w) => [w.id, w.domain]);

describe('records that differ only in case', () => {
  it('the simulator holds both as written', () => {
    expect(domains()).toEqual([
      [1, 'Shop.example.com'],
      [2, 'other.example.com'],
      [3, 'shop.example.com'],
      [4, 'SOLO.example.com'],
      [5, 'solo.example.com'],
    ]);
  });

  it('a manifest naming neither plans and applies, reading the listing once', async () => {
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: other.example.com\n');
    const run = await runCli(['--once'], env);
    expect(run.stderr).not.toContain('kept changing');
    expect(run.code).toBe(0);
    // One page of the listing (beside it, the account's plan: issue 20).
    expect(
      simulator.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/websites'),
    ).toHaveLength(1);
  });

  it('with prune, the entry manages the record stored exactly as its name; the twin is kept and named', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\nwebsites:\n  - domain: other.example.com\n  - domain: Shop.example.com\n    privacy: public\n  - domain: solo.example.com\n    privacy: public\n',
    );
    const run = await runCli(['--once', '-o', 'json'], env);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as { changes: { action: string; id: number }[]; warnings: string[] };
    // Website 2 may get its write-only fields written once; the twins are what this test is about.
    expect(
      plan.changes
        .filter((c) => c.id !== 2)
        .map((c) => [c.action, c.id])
        .sort(),
    ).toEqual([
      ['update', 3],
      ['update', 5],
    ]);
    expect(plan.warnings).toContain(
      'Shop.example.com (id 1) is the same website as the listed shop.example.com for websites-sync, but the service holds it separately: websites-sync manages website 3, stored as shop.example.com, and never changes or deletes this one (the manifest cannot name it apart; delete it in the web interface if it is not wanted)',
    );
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(domains()).toHaveLength(5);
    expect(simulator.listWebsites().map((w) => w.privacy)).toEqual([1, 1, 0, 1, 0]);
  });

  it('with prune, twins the manifest does not list are both kept, named once, and the rest is pruned', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\nwebsites:\n  - domain: other.example.com\n',
    );
    const run = await runCli(['--once', '-o', 'json'], env);
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as { changes: { action: string }[]; warnings: string[] };
    expect(plan.changes.filter((c) => c.action === 'delete')).toEqual([]);
    expect(plan.warnings.filter((w) => w.includes('held separately'))).toEqual([
      'Shop.example.com (id 1) and shop.example.com (id 3) are one website for websites-sync, held separately by the service: prune deletes neither (list the name to manage one of them; delete the other in the web interface if it is not wanted)',
      'SOLO.example.com (id 4) and solo.example.com (id 5) are one website for websites-sync, held separately by the service: prune deletes neither (list the name to manage one of them; delete the other in the web interface if it is not wanted)',
    ]);
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(domains()).toHaveLength(5);
  });

  it('a lone unlisted record is still pruned beside kept twins', async () => {
    await simulator.close();
    simulator = await startSimulator({
      websites: [
        { domain: 'Shop.example.com', stored_as_written: true },
        { domain: 'shop.example.com' },
        { domain: 'kept.example.com' },
        { domain: 'gone.example.com' },
      ],
    });
    env = toolEnv(simulator, dir);
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\nwebsites:\n  - domain: kept.example.com\n',
    );
    const run = await runCli(['--once', '--dry-run', '-o', 'json'], env);
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as { changes: { action: string; domain: string }[] };
    expect(plan.changes.filter((c) => c.action === 'delete').map((c) => c.domain)).toEqual([
      'gone.example.com',
    ]);
  });
});
