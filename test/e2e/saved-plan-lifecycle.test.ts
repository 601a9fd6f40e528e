import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Applying a reviewed plan (`--once --plan FILE`) is a real run: what the manifest asks the state to
// remember (protection, since when a delete has been pending) is remembered as by `--once`, and a
// create keeps its `protect` and `ignore_fields`.

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

async function start(websites: SeedWebsite[]): Promise<void> {
  simulator = await startSimulator({ websites });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-saved-lifecycle-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

afterEach(async () => {
  await simulator.close();
});

function manifest(text: string): Promise<void> {
  return writeFile(join(dir, 'websites.yaml'), `version: 1\n${text}`);
}

function idOf(domain: string): number {
  const website = simulator.listWebsites().find((w) => w.domain === domain);
  if (!website) throw new Error(`no ${domain} on the simulator`);
  return website.id;
}

async function readState(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as Record<string, unknown>;
}

/** Saves the plan for review, then applies exactly it; both must succeed. */
async function reviewAndApply(): Promise<void> {
  const planFile = join(dir, 'plan.json');
  const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
  expect(saved.code, saved.stderr).toBe(0);
  const applied = await runCli(['--once', '--plan', planFile], env);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
}

function deletes(): string[] {
  return simulator.requests.filter((r) => r.method === 'DELETE').map((r) => `${r.method} ${r.path}`);
}

describe('--once --plan records what the manifest asks the state to remember', () => {
  it('protects a listed website and a created one, so removing their entries never deletes them', async () => {
    await start([{ domain: 'keep.example.com' }, { domain: 'other.example.com' }]);
    await manifest(
      'websites:\n  - domain: keep.example.com\n    protect: true\n  - domain: new.example.com\n    protect: true\n  - domain: other.example.com\n',
    );
    await reviewAndApply();
    expect(await readState()).toMatchObject({
      protected: {
        [String(idOf('keep.example.com'))]: { domain: 'keep.example.com' },
        [String(idOf('new.example.com'))]: { domain: 'new.example.com' },
      },
    });

    await manifest('prune: true\nwebsites:\n  - domain: other.example.com\n');
    const forced = await runCli(['--once', '--force'], env);
    expect(forced.code).toBe(0);
    expect(deletes()).toEqual([]);
    expect(
      simulator
        .listWebsites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(['keep.example.com', 'new.example.com', 'other.example.com']);
  });

  it('lifts a protection when the applied plan lists the website with protect: false', async () => {
    await start([{ domain: 'keep.example.com' }, { domain: 'other.example.com' }]);
    const id = idOf('keep.example.com');
    await manifest(
      'websites:\n  - domain: keep.example.com\n    protect: true\n  - domain: other.example.com\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    await manifest(
      'websites:\n  - domain: keep.example.com\n    protect: false\n  - domain: other.example.com\n',
    );
    await reviewAndApply();
    expect((await readState()).protected).toBeUndefined();

    await manifest('prune: true\nwebsites:\n  - domain: other.example.com\n');
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(deletes()).toEqual([`DELETE /api/v1/websites/${id}`]);
  });

  it('starts the delete_delay clock of a delete it holds back', async () => {
    await start([{ domain: 'gone.example.com' }, { domain: 'stay.example.com' }]);
    const id = idOf('gone.example.com');
    await manifest('prune: true\ndelete_delay: 24h\nwebsites:\n  - domain: stay.example.com\n');
    const before = Date.now();
    await reviewAndApply();
    const pending = (await readState()).pending_deletes as Record<string, { since: string }>;
    expect(pending[String(id)]).toBeDefined();
    const since = Date.parse(pending[String(id)]!.since);
    expect(since).toBeGreaterThanOrEqual(before - 1000);

    // The clock runs on: the next run does not restart it.
    const again = await runCli(['--once', '--dry-run'], env);
    expect(again.stdout).toContain(
      `missing from the manifest since ${pending[String(id)]!.since.slice(0, 16).replace('T', ' ')}`,
    );
    expect(deletes()).toEqual([]);
  });
});
