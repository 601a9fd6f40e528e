import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';

// Issue 14 §1: a read of the whole account uses only its share of the key's limit, so another client
// of the same key (a dashboard, a script) is not refused meanwhile. Time-scaled: 20 requests per
// 1-second window stands for the service's 60 a minute.
let simulator: Simulator;
afterEach(async () => {
  await simulator.close();
});

const NEIGHBOUR = 'neighbour-dashboard';

/** The CLI reads the account while a neighbour sends 5 requests a second with the same key. */
async function readBesideNeighbour(extra: string[]) {
  simulator = await startSimulator({
    websites: Array.from({ length: 2_000 }, (_, i) => ({ domain: `site-${i}.example.com` })),
    rateLimit: { limit: 20, windowMs: 1_000 },
  });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-budget-'));
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: site-0.example.com\n');
  const cli = startCli(
    ['--once', '--dry-run', '--rate-window', '1s', '--concurrency', '4', ...extra],
    toolEnv(simulator, dir),
  );
  const neighbour = () =>
    Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${simulator.url}/api/v1/websites?page=1`, {
          headers: {
            authorization: `Bearer ${simulator.apiKey}`,
            'user-agent': NEIGHBOUR,
            accept: 'application/json',
          },
        }).then((r) => r.arrayBuffer()),
      ),
    );
  // Load, not synchronisation: the neighbour keeps its own pace for as long as the run lasts.
  const timer = setInterval(() => void neighbour(), 1_000);
  void neighbour();
  const run = await cli.done;
  clearInterval(timer);
  const theirs = simulator.requests.filter((r) => r.headers['user-agent'] === NEIGHBOUR);
  const ours = simulator.requests.filter((r) => r.headers['user-agent']?.startsWith('websites-sync/'));
  // The simulator's windows, like the service's, are whole seconds.
  const perWindow = new Map<number, number>();
  for (const r of ours)
    perWindow.set(Math.floor(r.at / 1000), (perWindow.get(Math.floor(r.at / 1000)) ?? 0) + 1);
  return {
    run,
    refused: theirs.filter((r) => r.status === 429).length,
    sent: theirs.length,
    pages: ours.filter((r) => r.status === 200 && r.path === '/api/v1/websites').length,
    busiestWindow: Math.max(...perWindow.values()),
  };
}

describe('--rate-budget', () => {
  it('at 50%, a full read uses at most half of each window, and the neighbour is never refused', async () => {
    const { run, refused, sent, pages, busiestWindow } = await readBesideNeighbour(['--rate-budget', '50']);
    expect(run.code, run.stderr).toBe(0);
    expect(pages).toBe(20); // 2,000 websites
    expect(busiestWindow).toBeLessThanOrEqual(10);
    expect(sent).toBeGreaterThan(5);
    expect(refused).toBe(0);
  });

  it('at the whole limit (the --once default), the same read takes more than half of a window', async () => {
    const { run, pages, busiestWindow } = await readBesideNeighbour([]);
    expect(run.code, run.stderr).toBe(0);
    expect(pages).toBe(20);
    expect(busiestWindow).toBeGreaterThan(10);
  });

  it('refuses a share outside 1–100%', async () => {
    simulator = await startSimulator({});
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-budget-'));
    const run = await runCli(['--once', '--rate-budget', '0'], toolEnv(simulator, dir));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '--rate-budget: "0" is not a share of the rate limit; use a percentage from 1 to 100',
    );
  });
});
