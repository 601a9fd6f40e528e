import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { syncOnce, tempStatePath, websiteRequests, writeCalls } from '../helpers/harness.js';

// Someone edits the account in the web UI while the tool pages through its 250 websites (3 pages,
// pages 2 and 3 fetched concurrently after page 1). The tool must neither create a website that
// exists nor delete one it should keep, and must end with the account as declared.

const DECLARED = Array.from({ length: 240 }, (_, i) => `site${i}.example.com`);
// An unlisted website first (id 1, on page 1), the declared ones (ids 2-241), nine more unlisted.
const SEEDED = [
  'other0.example.com',
  ...DECLARED,
  ...Array.from({ length: 9 }, (_, i) => `other${i + 1}.example.com`),
];

let simulator: Simulator;
let statePath: string;

afterEach(async () => {
  await simulator?.close();
});

function manifest(prune: boolean): string {
  return `version: 1\nprune: ${prune}\nwebsites:\n${DECLARED.map((d) => `  - domain: ${d}\n`).join('')}`;
}

/** An account already converged with the manifest (and the state file that goes with it). */
async function convergedAccount(prune: boolean): Promise<void> {
  simulator = await startSimulator({ websites: SEEDED.map((domain) => ({ domain })) });
  statePath = await tempStatePath();
  await syncOnce({ simulator, manifest: manifest(prune), statePath });
  simulator.clearRequests();
}

/** Runs `edit` once, just before the first page after page 1 is served. */
function editWhilePaging(edit: () => void): void {
  let done = false;
  simulator.onRequest = (req) => {
    if (done || req.path !== '/api/v1/websites' || req.method !== 'GET') return;
    if (req.query.search !== undefined || Number(req.query.page) < 2) return;
    done = true;
    edit();
  };
}

const idOf = (domain: string) => simulator.listWebsites().find((w) => w.domain === domain)?.id ?? -1;
const domains = () =>
  simulator
    .listWebsites()
    .map((w) => w.domain)
    .sort();

async function expectConverged(prune: boolean, others: string[]): Promise<void> {
  expect(domains()).toEqual([...DECLARED, ...others].sort());
  simulator.clearRequests();
  const again = await syncOnce({ simulator, manifest: manifest(prune), statePath, dryRun: true });
  expect(again.plan.changes).toEqual([]);
}

describe('edits made while the tool pages through the account', () => {
  it('a declared and an unlisted website deleted meanwhile: re-listed, the declared one recreated once', async () => {
    await convergedAccount(false);
    editWhilePaging(() => {
      simulator.deleteWebsite(idOf('site30.example.com'));
      simulator.deleteWebsite(idOf('other5.example.com'));
    });
    const run = await syncOnce({ simulator, manifest: manifest(false), statePath });
    expect(run.applied?.failed).toBe(0);
    // The totals changed between pages: the account was read again before planning.
    expect(run.plan.changes.map((c) => [c.kind, c.domain])).toEqual([['create', 'site30.example.com']]);
    expect(writeCalls(simulator).map((w) => [w.method, w.body?.domain])).toEqual([
      ['POST', 'site30.example.com'],
    ]);
    // 3 pages torn, 3 read again; before the store, one lookup of the domain confirms it is absent
    // (cheaper than 3 more pages).
    const reads = websiteRequests(simulator).filter((r) => r.method === 'GET');
    expect(reads).toHaveLength(7);
    expect(reads.filter((r) => r.query.search === 'site30.example.com')).toHaveLength(1);
    await expectConverged(
      false,
      SEEDED.filter((d) => d.startsWith('other') && d !== 'other5.example.com'),
    );
  });

  it('a declared website created by someone else meanwhile is not created again', async () => {
    await convergedAccount(false);
    simulator.deleteWebsite(idOf('site200.example.com'));
    editWhilePaging(() => simulator.createWebsite({ domain: 'site200.example.com' }));
    const run = await syncOnce({ simulator, manifest: manifest(false), statePath });
    expect(run.plan.changes.filter((c) => c.kind === 'create')).toEqual([]);
    expect(writeCalls(simulator).filter((w) => w.method === 'POST')).toEqual([]);
    await expectConverged(
      false,
      SEEDED.filter((d) => d.startsWith('other')),
    );
  });

  it('a deletion on page 1 plus an addition at the end (equal totals): no store, no delete, converged', async () => {
    await convergedAccount(false);
    // Website 101 (site99) moves onto page 1 after page 1 was read; the totals still agree.
    editWhilePaging(() => {
      simulator.deleteWebsite(idOf('other0.example.com'));
      simulator.createWebsite({ domain: 'intruder.example.com' });
    });
    const run = await syncOnce({ simulator, manifest: manifest(false), statePath });
    // The paged listing missed site99; because the plan would then create it, the account was read
    // again before planning, and the plan made from that agreeing listing has nothing to do.
    expect(run.plan.changes).toEqual([]);
    expect(writeCalls(simulator)).toEqual([]);
    await expectConverged(false, [
      ...SEEDED.filter((d) => d.startsWith('other') && d !== 'other0.example.com'),
      'intruder.example.com',
    ]);
  });
});
