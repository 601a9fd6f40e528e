// The guards that read the service (issue 20), from the built CLI against the simulator: a delete of a
// website with visitors is refused (the rest goes ahead), unknown traffic follows traffic_guard, a plan
// beyond the account's plan limit says so before any change and applies deletes first, and a key
// rotated part-way stops the run at once.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type EndpointFault,
  type SeedWebsite,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { startReceiver } from '../helpers/receiver.js';

let simulator: Simulator;
let env: Record<string, string>;
let dir: string;

afterEach(async () => {
  await simulator?.close();
});

const KEEP = [{ domain: 'keep.example.com' }];
const SHOP: SeedWebsite = { domain: 'shop.example.com', visitors_last_30d: 1204 };
const QUIET: SeedWebsite = { domain: 'quiet.example.com' };

async function start(options: SimulatorOptions, manifest: string): Promise<void> {
  simulator = await startSimulator(options);
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-guards-'));
  await writeFile(join(dir, 'websites.yaml'), manifest);
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
}

const PRUNE = `version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n`;
const domains = () => simulator.listWebsites().map((w) => w.domain);
const calls = () => simulator.requests.map((r) => `${r.method} ${r.path}`);

describe('the traffic guard', () => {
  it('refuses to delete a website with visitors, deletes the rest, and exits 3; one read per delete', async () => {
    await start({ websites: [...KEEP, SHOP, QUIET] }, PRUNE);
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('- shop.example.com: refused, 1,204 visitors in the last 30 days');
    expect(run.stderr).toMatch(/refused: traffic guard: 1 delete\(s\) refused/);
    expect(domains()).toEqual(['keep.example.com', 'shop.example.com']);
    expect(
      calls()
        .filter((c) => c.startsWith('GET /api/v1/stats/'))
        .sort(),
    ).toEqual(['GET /api/v1/stats/2', 'GET /api/v1/stats/3']);
    expect(calls().filter((c) => c === 'GET /api/v1/account')).toHaveLength(1);
    expect(calls().filter((c) => c.startsWith('DELETE'))).toEqual(['DELETE /api/v1/websites/3']);
  });

  it('a dry run shows the count too, and the JSON plan carries it', async () => {
    await start({ websites: [...KEEP, SHOP] }, PRUNE);
    const run = await runCli(['--once', '--dry-run', '--output', 'json'], env);
    expect(run.code).toBe(3);
    const plan = JSON.parse(run.stdout);
    expect(plan.traffic_refused).toEqual([
      { id: 2, domain: 'shop.example.com', visitors: 1204, window_days: 30 },
    ]);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it.each([
    [
      'allow_delete_with_traffic: true on its entry',
      `${PRUNE}  - domain: shop.example.com\n    allow_delete_with_traffic: true\n`,
      [],
    ],
    ['--force', PRUNE, ['--force']],
  ])('%s lets it through', async (_, manifest, args) => {
    await start({ websites: [...KEEP, SHOP] }, manifest);
    const run = await runCli(['--once', ...args], env);
    expect(run.stderr).not.toContain('refused');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /- shop\.example\.com \(id 2\) {2}\(1,204 visitors in the last 30 days; allowed by /,
    );
    expect(domains()).toEqual(['keep.example.com']);
  });

  it.each<EndpointFault>([404, 500, 'unreadable'])(
    'traffic the service cannot tell (%s) is shown as unknown: lenient deletes, strict refuses',
    async (fault) => {
      await start({ websites: [...KEEP, QUIET], faults: { statsFault: fault } }, PRUNE);
      const strict = await runCli(['--once'], { ...env, WEBSITES_SYNC_TRAFFIC_GUARD: 'strict' });
      expect(strict.code).toBe(3);
      expect(strict.stdout).toMatch(/- quiet\.example\.com: refused, traffic unknown: /);
      expect(domains()).toContain('quiet.example.com');
      const lenient = await runCli(['--once'], env);
      expect(lenient.code).toBe(0);
      expect(lenient.stdout).toMatch(/- quiet\.example\.com \(id 2\) {2}\(traffic unknown: /);
      expect(domains()).toEqual(['keep.example.com']);
    },
  );

  it('a read that gets no usable answer now (503 on every try) holds the delete back under lenient too', async () => {
    await start({ websites: [...KEEP, SHOP] }, PRUNE);
    const review = await runCli(['--once', '--dry-run'], env);
    expect(review.stdout).toContain('- shop.example.com: refused, 1,204 visitors in the last 30 days');
    // The gateway in front of the stats endpoint is down when the reviewed plan is applied.
    simulator.setFaults({ statsFault: 503 });
    const apply = await runCli(['--once'], env);
    expect(apply.stdout).toContain(
      '- shop.example.com: refused, traffic unknown: the service answered 503 (a passing failure',
    );
    expect(apply.stderr).toMatch(/refused: traffic guard: 1 delete\(s\) refused/);
    expect(apply.code).toBe(3);
    expect(calls().filter((c) => c.startsWith('DELETE'))).toEqual([]);
    expect(domains()).toEqual(['keep.example.com', 'shop.example.com']);
  });

  it('the same delete held back run after run is told once, though its visitors grow meanwhile', async () => {
    await start({ websites: [...KEEP, SHOP] }, PRUNE);
    const hook = await startReceiver({ setAside: ['warnings'] });
    const notified = { ...env, WEBSITES_SYNC_NOTIFY_URL: hook.url };
    expect((await runCli(['--once'], notified)).code).toBe(3);
    // The website keeps being visited between runs (an hourly cron, a daemon's resyncs).
    simulator.addVisitors(2, 17);
    const again = await runCli(['--once'], notified);
    expect(again.stdout).toContain('- shop.example.com: refused, 1,221 visitors in the last 30 days');
    expect(again.code).toBe(3);
    // Another website held back is news: told again, with both.
    simulator.createWebsite({ domain: 'blog.example.com', visitors_last_30d: 3 });
    expect((await runCli(['--once'], notified)).code).toBe(3);
    await hook.close();
    const told = hook.received.filter((event) => event.event === 'traffic_refused');
    expect(told.map((event) => event.websites)).toEqual([
      ['shop.example.com'],
      ['blog.example.com', 'shop.example.com'],
    ]);
    expect(told[0]?.text).toContain('shop.example.com: refused, 1,204 visitors');
  });

  it('allow_delete_with_traffic on a record stored under a www. name lets that record go', async () => {
    const legacy: SeedWebsite = {
      domain: 'www.old.example.com',
      stored_as_written: true,
      visitors_last_30d: 4,
    };
    await start(
      { websites: [...KEEP, legacy] },
      `${PRUNE}  - domain: www.old.example.com\n    allow_delete_with_traffic: true\n`,
    );
    const run = await runCli(['--once'], env);
    expect(run.stdout).toContain('allowed by allow_delete_with_traffic');
    expect(run.code).toBe(0);
    expect(domains()).toEqual(['keep.example.com']);
  });

  it('traffic_window: 0 in the manifest turns it off: no read, the delete goes ahead', async () => {
    await start(
      { websites: [...KEEP, SHOP] },
      PRUNE.replace('prune: true', 'prune: true\ntraffic_window: 0'),
    );
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(0);
    expect(calls().some((c) => c.startsWith('GET /api/v1/stats'))).toBe(false);
    expect(domains()).toEqual(['keep.example.com']);
  });
});

describe("the account's plan limit", () => {
  const manifest = `version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n  - domain: new1.example.com\n  - domain: new2.example.com\n`;
  const seed = { websites: [...KEEP, QUIET, { domain: 'other.example.com' }], maxWebsites: 3 };

  it('a dry run says the plan does not fit, before any change', async () => {
    await start(seed, manifest.replace('prune: true', 'prune: false'));
    const run = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(run.stdout).toContain(
      "the account's plan allows 3 websites; 3 now, 3 after this plan; 2 creates cannot fit",
    );
    expect(run.stderr).toContain('2 website(s) would not be created, beyond the account');
    expect(run.code).toBe(1);
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('an apply sends the deletes first, then only the creates that fit, and exits 1 naming the others', async () => {
    await start({ websites: seed.websites }, manifest);
    // An account over its plan's limit (the plan was downgraded): the deletes make room for one create.
    simulator.setMaxWebsites(2);
    const run = await runCli(['--once', '--concurrency', '1'], env);
    expect(run.stdout).toContain(
      "the account's plan allows 2 websites; 3 now, 2 after this plan; 1 create cannot fit and will not be sent",
    );
    expect(run.code).toBe(1);
    const writes = simulator.requests
      .filter((r) => ['DELETE', 'POST'].includes(r.method))
      .map((r) => r.method);
    expect(writes).toEqual(['DELETE', 'DELETE', 'POST']);
    expect(run.stderr).toContain(
      "1 website(s) not created, beyond the account's plan limit: new2.example.com",
    );
    expect(run.stdout).toContain(
      "✗ create new2.example.com: not created: the account's plan limit (2 websites) is reached",
    );
  });

  it('a drift check of a plan with creates that do not fit and refused deletes exits 1, as its apply does', async () => {
    await start({ websites: [...seed.websites, SHOP] }, manifest);
    simulator.setMaxWebsites(3);
    const run = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(run.stderr).toContain("would not be created, beyond the account's plan limit");
    expect(run.stderr).toMatch(/refused: traffic guard: 1 delete\(s\) refused/);
    expect(run.code).toBe(1);
  });

  it('an apply with creates that do not fit and deletes the traffic guard refused says both on stderr', async () => {
    await start({ websites: [...seed.websites, SHOP] }, manifest);
    simulator.setMaxWebsites(3);
    const run = await runCli(['--once', '--concurrency', '1'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("website(s) not created, beyond the account's plan limit");
    expect(run.stderr).toMatch(
      /refused: traffic guard: 1 delete\(s\) refused \(shop\.example\.com: refused, 1,204 visitors/,
    );
  });

  it.each<EndpointFault>([404, 500, 'unreadable'])(
    'unanswered (%s), it changes only the line',
    async (fault) => {
      await start({ websites: KEEP, faults: { accountFault: fault } }, manifest);
      const run = await runCli(['--once'], env);
      expect(run.stdout).toMatch(/the account's plan limit is unknown \(/);
      expect(run.code).toBe(0);
      expect(domains()).toHaveLength(3);
    },
  );
});

describe('a key rotated part-way', () => {
  it('stops at once: nothing more sent, the state saved, what was and was not done reported', async () => {
    const manifest = `version: 1\nwebsites:\n${[1, 2, 3, 4].map((i) => `  - domain: site${i}.example.com\n    exclude_params: [ref]\n`).join('')}`;
    await start({}, manifest);
    let posts = 0;
    simulator.onRequest = (request) => {
      if (request.method === 'POST' && ++posts === 2) simulator.setApiKey('regenerated-in-the-web-ui');
    };
    const hook = await startReceiver();
    const run = await runCli(['--once', '--concurrency', '1'], {
      ...env,
      WEBSITES_SYNC_NOTIFY_URL: hook.url,
    });
    await hook.close();
    // The webhook says why the operations failed, not only which.
    const failed = hook.received.find((event) => event.event === 'operation_failed');
    expect(failed?.text).toMatch(/operation\(s\) failed: .*rotated or revoked/s);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused the API key \(401 Unauthenticated\.\)\. This came part-way through the run.*rotated or revoked.*nothing more was sent/s,
    );
    // The refused POST was the last request: no retry, nothing queued sent.
    expect(simulator.requests.at(-1)).toMatchObject({ method: 'POST', status: 401 });
    expect(simulator.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(run.stdout).toContain('✓ create site1.example.com');
    expect(run.stdout).toMatch(/✗ create site3\.example\.com/);
    const state = await readFile(join(dir, 'state.json'), 'utf8');
    expect(state).toContain('site1.example.com');
  });
});

describe('saved plans and the traffic guard', () => {
  async function savePlan(): Promise<string> {
    const planFile = join(dir, 'plan.json');
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
    expect(saved.code, saved.stderr).toBe(0);
    const file = JSON.parse(await readFile(planFile, 'utf8'));
    const deleted = file.changes.find((c: { action: string }) => c.action === 'delete');
    expect(deleted.traffic).toEqual({ visitors: 0, window_days: 30 });
    return planFile;
  }

  it('show the counts to the reviewer, and apply when no delete gained traffic', async () => {
    await start({ websites: [...KEEP, QUIET] }, PRUNE);
    const planFile = await savePlan();
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(domains()).toEqual(['keep.example.com']);
  });

  it('are stale when a delete in them gained traffic since', async () => {
    await start({ websites: [...KEEP, QUIET] }, PRUNE);
    const planFile = await savePlan();
    simulator.addVisitors(2, 12);
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      'quiet.example.com (id 2) gained traffic since the plan: 0 then, 12 visitors in the last 30 days now',
    );
    expect(domains()).toContain('quiet.example.com');
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('apply a delete approved with its visitors though it gained more since (allow_delete_with_traffic)', async () => {
    const allowed = `${PRUNE}  - domain: shop.example.com\n    allow_delete_with_traffic: true\n`;
    await start({ websites: [...KEEP, SHOP] }, allowed);
    const planFile = join(dir, 'plan.json');
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(
      '1,204 visitors in the last 30 days; allowed by allow_delete_with_traffic',
    );
    // The reviewer approved deleting a website with visitors: one more visit is not another decision.
    simulator.addVisitors(2, 1);
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(domains()).toEqual(['keep.example.com']);
  });

  it('do not delete when the traffic cannot be read now, and say to apply again, not to plan again', async () => {
    await start({ websites: [...KEEP, QUIET] }, PRUNE);
    const planFile = await savePlan();
    simulator.setFaults({ statsFault: 503 });
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      'quiet.example.com (id 2): its traffic could not be read now (the service answered 503), so it is not deleted; apply the plan again when the service answers',
    );
    // Nothing the plan depends on changed: it is not called stale, nor is a new plan asked for.
    expect(applied.stderr).toContain(`not applied: ${planFile} still matches the account and the manifest`);
    expect(applied.stderr).toContain(
      `Apply it again when the service answers: websites-sync --once --plan ${planFile}`,
    );
    expect(applied.stderr).not.toMatch(/stale plan|Plan again/);
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    simulator.setFaults({ statsFault: undefined });
    const again = await runCli(['--once', '--plan', planFile], env);
    expect(again.code, again.stderr).toBe(0);
    expect(domains()).toEqual(['keep.example.com']);
  });

  it("a plan whose account drifted elsewhere is stale, even while a delete's traffic gets no answer", async () => {
    await start({ websites: [...KEEP, QUIET] }, PRUNE);
    const planFile = await savePlan();
    // Changed in the web UI after the review: a fresh plan would also update it.
    const keep = simulator.listWebsites().find((w) => w.domain === 'keep.example.com');
    simulator.updateWebsite(keep?.id ?? 0, { email: true });
    simulator.setFaults({ statsFault: 503 });
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(/^stale plan: /m);
    expect(applied.stderr).toContain('a fresh plan would also update keep.example.com');
    expect(applied.stderr).not.toContain('still matches the account and the manifest');
    // Its traffic is said, but not "apply the plan again": this plan will not apply.
    expect(applied.stderr).toContain('quiet.example.com (id 2): its traffic could not be read now');
    expect(applied.stderr).not.toContain('apply the plan again');
    expect(simulator.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('hold a delete the guard refused as shown, not as an operation: the rest applies, still refused', async () => {
    await start({ websites: [...KEEP, SHOP, QUIET] }, PRUNE);
    const planFile = join(dir, 'plan.json');
    const saved = await runCli(['--once', '--dry-run', '--out', planFile], env);
    expect(saved.code).toBe(3);
    const file = JSON.parse(await readFile(planFile, 'utf8'));
    expect(file.traffic_refused.map((r: { domain: string }) => r.domain)).toEqual(['shop.example.com']);
    const operations = file.saved_plan.operations.map((o: { domain: string }) => o.domain);
    expect(operations).not.toContain('shop.example.com');
    const applied = await runCli(['--once', '--plan', planFile], env);
    expect(applied.stderr).not.toContain('stale');
    expect(applied.code).toBe(3);
    expect(domains()).toEqual(['keep.example.com', 'shop.example.com']);
  });
});
