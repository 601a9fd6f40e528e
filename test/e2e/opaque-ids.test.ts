import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SeedWebsite, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// The seed leaves the format of a website's id open: a service may show `w-7` or `07` where the
// simulator shows 7 by default. The tool treats ids as opaque strings end to end: the state remembers
// protections and pending deletes by them, and requests name a website by the id exactly as shown.

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

async function start(websites: SeedWebsite[], idPrefix: string): Promise<void> {
  simulator = await startSimulator({ websites, idPrefix });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-ids-'));
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

afterEach(async () => {
  await simulator.close();
});

function manifest(text: string): Promise<void> {
  return writeFile(join(dir, 'websites.yaml'), `version: 1\n${text}`);
}

function writes(): string[] {
  return simulator.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

/** The id the service shows for a domain (the prefix and the stored number). */
function shownId(domain: string): string {
  const website = simulator.listWebsites().find((w) => w.domain === domain);
  if (!website) throw new Error(`no ${domain} on the simulator`);
  return `${prefix}${website.id}`;
}
let prefix = '';

async function readState(): Promise<Record<string, Record<string, { domain: string; since?: string }>>> {
  return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'));
}

describe('ids that are not integers', () => {
  it('a protection recorded by a string id survives the next run: prune does not delete the website', async () => {
    prefix = 'w-';
    await start([{ domain: 'keep.example.com' }, { domain: 'prot.example.com' }], prefix);
    const id = shownId('prot.example.com');
    await manifest(
      'websites:\n  - domain: keep.example.com\n  - domain: prot.example.com\n    protect: true\n',
    );
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect((await readState()).protected).toEqual({ [id]: { domain: 'prot.example.com' } });

    await manifest('prune: true\nwebsites:\n  - domain: keep.example.com\n');
    simulator.clearRequests();
    const pruned = await runCli(['--once'], env);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('= prot.example.com: kept: protected');
    expect(writes()).toEqual([]);
    expect(simulator.listWebsites().map((w) => w.domain)).toContain('prot.example.com');
    expect((await readState()).protected).toEqual({ [id]: { domain: 'prot.example.com' } });
  });

  it('a pending delete recorded by a string id keeps its start, and is sent once due', async () => {
    prefix = 'w-';
    await start([{ domain: 'gone.example.com' }, { domain: 'stay.example.com' }], prefix);
    const id = shownId('gone.example.com');
    await manifest('prune: true\ndelete_delay: 24h\nwebsites:\n  - domain: stay.example.com\n');
    expect((await runCli(['--once'], env)).code).toBe(0);
    const since = (await readState()).pending_deletes?.[id]?.since;
    expect(since).toBeDefined();

    // A day passes (moved in the state rather than waited for): the delete is due and sent.
    const state = await readState();
    const dayAgo = new Date(Date.parse(since ?? '') - 25 * 3_600_000).toISOString();
    state.pending_deletes = { [id]: { domain: 'gone.example.com', since: dayAgo } };
    await writeFile(join(dir, 'state.json'), JSON.stringify(state));
    simulator.clearRequests();
    expect((await runCli(['--once'], env)).code).toBe(0);
    expect(writes()).toEqual([`DELETE /api/v1/websites/${id}`]);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['stay.example.com']);
  });

  it('an id of digits with a leading zero is sent as shown, not as the number it reads as', async () => {
    prefix = '0';
    await start([{ domain: 'zero.example.com', email: false }, { domain: 'gone.example.com' }], prefix);
    const id = shownId('zero.example.com');
    const gone = shownId('gone.example.com');
    expect(id).toBe('01');
    // exclude_params declared: its fingerprint is what the state keys by the id as shown.
    await manifest(
      'prune: true\nwebsites:\n  - domain: zero.example.com\n    email: true\n    exclude_params: []\n',
    );
    const run = await runCli(['--once'], env);
    // Its one warning: a first run, without a state file, that deletes.
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('no state file at')]);
    expect(run.code).toBe(0);
    expect([...new Set(writes())].sort()).toEqual([
      `DELETE /api/v1/websites/${gone}`,
      `PATCH /api/v1/websites/${id}`,
    ]);
    expect(simulator.listWebsites().map((w) => [w.domain, w.email])).toEqual([['zero.example.com', 1]]);
    expect(Object.keys((await readState()).websites ?? {})).toEqual([id]);
  });
});
