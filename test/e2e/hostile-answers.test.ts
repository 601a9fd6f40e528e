import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Issue 19 §7: every field of every answer is checked for its type before use. A value of another
// type is a clear error naming the request, the website and a redacted excerpt, never an internal
// error; a store that was done but answered strangely is reported as created, and not stored again.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

async function start(options: SimulatorOptions): Promise<void> {
  simulator = await startSimulator(options);
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-hostile-answers-'));
  env = toolEnv(simulator, dir);
}

afterEach(async () => {
  await simulator.close();
});

const page = (record: Record<string, unknown>) => ({
  data: [{ privacy: 1, email: false, exclude_bots: true, password: false, exclude_ips: null, ...record }],
  meta: { current_page: 1, last_page: 1, total: 1 },
});

describe('a listing with a value of another type', () => {
  beforeEach(async () => {
    await start({ websites: [{ domain: 'shop.example.com', privacy: 1 }] });
    await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: shop.example.com\n');
  });

  it.each([{ toString: 1 }, [{ toString: 1 }]])(
    'exclude_ips %j: names the request, the website and the value',
    async (value) => {
      simulator.setFaults({
        script: ['given-body'],
        givenBody: page({ id: 1, domain: 'shop.example.com', exclude_ips: value }),
      });
      const run = await runCli(['--once'], env);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain('internal error');
      expect(run.stderr).toContain(
        `GET /api/v1/websites (page 1): the answer holds a website websites-sync cannot use: "shop.example.com" (id 1): exclude_ips must be a one-per-line string, a list of strings or null, got ${JSON.stringify(value)}`,
      );
    },
  );

  // Issue 19 §4: an id of an odd type is its own message, never "the listing kept changing".
  it.each([1.5, true, { n: 1 }, 2 ** 53])('an id %j: its own message naming the website', async (id) => {
    simulator.setFaults({ script: ['given-body'], givenBody: page({ id, domain: 'shop.example.com' }) });
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('kept changing');
    expect(run.stderr).toContain(
      `"shop.example.com": id must be an integer of at most 2^53 or a non-empty string without line breaks, got ${JSON.stringify(id)}`,
    );
    // The one page (and, beside it, the account's plan: issue 20).
    expect(simulator.requests.filter((r) => r.path === '/api/v1/websites')).toHaveLength(1);
  });
});

describe('a store that was done but answered strangely', () => {
  beforeEach(async () => {
    await start({});
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: new.example.com\n    exclude_params: [utm_source]\n',
    );
  });

  it('is reported as created, recorded, and not created again', async () => {
    const givenBody = { data: { id: 1, domain: 'new.example.com', exclude_ips: [{ toString: 1 }] } };
    simulator.setFaults({ script: ['none', 'given-body'], givenBody });
    const run = await runCli(['--once'], env);
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/created.*new\.example\.com|new\.example\.com.*created/);
    expect(run.stderr).toContain('store answered strangely; the website was created');
    expect(simulator.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(simulator.listWebsites().map((w) => [w.domain, w.exclude_params])).toEqual([
      ['new.example.com', 'utm_source'],
    ]);
    expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'))).toBeTruthy();

    simulator.clearRequests();
    const again = await runCli(['--once', '--dry-run', '--detailed-exitcode'], env);
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
  });

  it('a refusal whose messages are not text is still a clear error', async () => {
    simulator.addTakenDomain('new.example.com');
    const givenBody = { message: { toString: 1 }, errors: { domain: [{ toString: 1 }] } };
    simulator.setFaults({ script: ['none', 'given-body'], givenBody });
    const run = await runCli(['--once'], env);
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).not.toContain('internal error');
    expect(run.stderr + run.stdout).toContain('domain: {"toString":1}');
  });
});
