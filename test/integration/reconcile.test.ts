import { readFile, rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { compareText } from '../../src/model/index.js';
import { AuthError } from '../../src/service/errors.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { apiCalls, syncOnce, tempStatePath, websiteRequests, writeCalls } from '../helpers/harness.js';

const MANIFEST = `
version: 1
defaults:
  exclude_bots: true
websites:
  - domain: example.com
    privacy: public
    email: true
    exclude_params: [utm_source, fbclid]
    exclude_ips: [203.0.113.7, "2001:db8::1"]
  - domain: https://www.Blog.Example.com/
    exclude_params: |
      ref
      gclid
  - domain: shop.example.com
    privacy: password
    password: \${SHOP_PASSWORD}
`;
const ENV = { SHOP_PASSWORD: 'correct horse battery staple' };

let simulator: Simulator;
async function start(options: SimulatorOptions = {}): Promise<Simulator> {
  simulator = await startSimulator(options);
  return simulator;
}

afterEach(async () => {
  await simulator?.close();
});

describe('reconcile against the simulator', () => {
  it('creates a fresh account exactly as declared, and a re-plan right after is empty', async () => {
    await start();
    const statePath = await tempStatePath();
    const first = await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    expect(first.applied?.failed).toBe(0);

    const stored = simulator
      .listWebsites()
      .map(({ domain, privacy, email, exclude_bots, exclude_params, exclude_ips, password }) => ({
        domain,
        privacy,
        email,
        exclude_bots,
        params: exclude_params?.split('\n').sort(),
        ips: exclude_ips?.split('\n').sort(),
        password,
      }));
    expect(stored.sort((a, b) => compareText(a.domain, b.domain))).toEqual([
      {
        domain: 'blog.example.com',
        privacy: 1,
        email: 0,
        exclude_bots: 1,
        params: ['gclid', 'ref'],
        ips: undefined,
        password: null,
      },
      {
        domain: 'example.com',
        privacy: 0,
        email: 1,
        exclude_bots: 1,
        params: ['fbclid', 'utm_source'],
        ips: ['2001:db8::1', '203.0.113.7'],
        password: null,
      },
      {
        domain: 'shop.example.com',
        privacy: 2,
        email: 0,
        exclude_bots: 1,
        params: undefined,
        ips: undefined,
        password: ENV.SHOP_PASSWORD,
      },
    ]);

    simulator.clearRequests();
    const again = await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    expect(again.plan.changes).toEqual([]);
    // The listing and, beside it, the account's plan (issue 20).
    expect(apiCalls(simulator).sort()).toEqual(['GET /api/v1/account', 'GET /api/v1/websites']);
  });

  it('a changed setting costs exactly one PATCH carrying only that field', async () => {
    await start();
    const statePath = await tempStatePath();
    await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    simulator.clearRequests();

    await syncOnce({
      simulator,
      manifest: MANIFEST.replace('email: true', 'email: false'),
      statePath,
      env: ENV,
    });
    const writes = writeCalls(simulator);
    expect(writes.map((w) => [w.method, w.path, w.body])).toEqual([
      ['PATCH', expect.stringMatching(/^\/api\/v1\/websites\/\d+$/), { email: '0' }],
    ]);
  });

  it('a converged account of 250 websites costs exactly the list requests, in both list shapes', async () => {
    for (const listShape of ['resource', 'paginator'] as const) {
      const websites = Array.from({ length: 250 }, (_, i) => ({ domain: `site${i}.example.com` }));
      await start({ websites, listShape });
      const manifest = `version: 1\nwebsites:\n${websites.map((w) => `  - domain: ${w.domain}\n`).join('')}`;
      const statePath = await tempStatePath();
      await syncOnce({ simulator, manifest, statePath });
      simulator.clearRequests();
      const again = await syncOnce({ simulator, manifest, statePath });
      expect(again.plan.unchanged).toBe(250);
      expect(apiCalls(simulator).sort()).toEqual([
        'GET /api/v1/account',
        ...Array(3).fill('GET /api/v1/websites'),
      ]);
      expect(websiteRequests(simulator).every((r) => r.query.per_page === '100')).toBe(true);
      await simulator.close();
    }
  });

  it('losing the state file resends write-only fields once, then converges', async () => {
    await start();
    const statePath = await tempStatePath();
    await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    await rm(statePath);
    simulator.clearRequests();

    const resend = await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    expect(resend.plan.changes.map((c) => c.kind)).toEqual(['update', 'update', 'update']);
    const bodies = writeCalls(simulator).map((w) => Object.keys(w.body ?? {}).sort());
    // Declared write-only fields are sent again; shop.example.com never declared exclude_params, so
    // what the service holds of it is left alone (issue 19 §10): only its declared password goes.
    expect(bodies.sort()).toEqual([['exclude_params'], ['exclude_params'], ['password']]);

    simulator.clearRequests();
    const after = await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    expect(after.plan.changes).toEqual([]);
    expect(writeCalls(simulator)).toEqual([]);
  });

  it('never writes a password or the key into the state file', async () => {
    await start();
    const statePath = await tempStatePath();
    await syncOnce({ simulator, manifest: MANIFEST, statePath, env: ENV });
    const text = await readFile(statePath, 'utf8');
    expect(text).not.toContain(ENV.SHOP_PASSWORD);
    expect(text).not.toContain('test-key');
  });
});

describe('deletes', () => {
  const listed = 'version: 1\nignore: ["*.staging.example.com"]\nwebsites:\n  - domain: keep.example.com\n';

  it('leaves unlisted websites alone without prune, deletes them with it, never ignored ones', async () => {
    await start({
      websites: [
        { domain: 'keep.example.com' },
        { domain: 'old.example.com' },
        { domain: 'a.staging.example.com' },
      ],
    });
    const statePath = await tempStatePath();
    const without = await syncOnce({ simulator, manifest: listed, statePath });
    expect(without.plan.unmanaged).toEqual(['old.example.com']);
    expect(simulator.listWebsites()).toHaveLength(3);

    const withPrune = await syncOnce({ simulator, manifest: listed, statePath, prune: true });
    expect(withPrune.plan.ignored).toEqual(['a.staging.example.com']);
    expect(
      simulator
        .listWebsites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(['a.staging.example.com', 'keep.example.com']);
  });

  it('the mass-delete guard refuses a large delete and changes nothing, unless forced', async () => {
    const websites = Array.from({ length: 12 }, (_, i) => ({ domain: `site${i}.example.com` }));
    await start({ websites });
    const statePath = await tempStatePath();
    const manifest = 'version: 1\nprune: true\nwebsites:\n  - domain: site0.example.com\n';
    simulator.clearRequests();
    const refused = await syncOnce({ simulator, manifest, statePath });
    expect(refused.refused).toMatch(/11 of 12 managed websites .* would be deleted/);
    expect(writeCalls(simulator)).toEqual([]);

    const forced = await syncOnce({ simulator, manifest, statePath, force: true });
    expect(forced.applied?.failed).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['site0.example.com']);
  });

  it('an empty websites list never deletes without --force', async () => {
    await start({ websites: [{ domain: 'a.example.com' }] });
    const result = await syncOnce({
      simulator,
      manifest: 'version: 1\nprune: true\nwebsites: []\n',
      statePath: await tempStatePath(),
    });
    expect(result.refused).toMatch(/lists no website/);
    expect(simulator.listWebsites()).toHaveLength(1);
  });
});

describe('failures', () => {
  it('a 422 on one website fails only that one, with the service message', async () => {
    await start({ takenDomains: ['taken.example.com'] });
    const manifest = 'version: 1\nwebsites:\n  - domain: taken.example.com\n  - domain: fine.example.com\n';
    const result = await syncOnce({ simulator, manifest, statePath: await tempStatePath() });
    expect(result.applied?.failed).toBe(1);
    const failed = result.applied?.outcomes.find((o) => o.result === 'failed');
    expect(failed).toMatchObject({
      domain: 'taken.example.com',
      error: expect.stringMatching(/another account/),
    });
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['fine.example.com']);
  });

  it('a bad key stops at once with a clear error and no retry', async () => {
    await start();
    const run = syncOnce({
      simulator,
      manifest: MANIFEST,
      statePath: await tempStatePath(),
      env: ENV,
      apiKey: 'wrong',
    });
    await expect(run).rejects.toBeInstanceOf(AuthError);
    await expect(run).rejects.toThrow(simulator.url);
    // The listing and the account's plan go together; each is refused once, neither retried.
    expect(apiCalls(simulator).sort()).toEqual(['GET /api/v1/account', 'GET /api/v1/websites']);
  });
});
