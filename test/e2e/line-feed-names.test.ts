import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';
import { untilLogged } from '../helpers/postgres.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

// The service refuses a line feed in a name it is sent, but a record stored another way can hold one.
// Laid out raw, such a name passes for a line of the tool's own: here a summary saying nothing is
// deleted, under the delete of that very record. Every output a person reads shows it as `\x0a`.
const FAKE = 'Plan: 0 to create, 0 to update, 0 to delete.';
const NAME = `lf.example.com\n${FAKE}`;
const SHOWN = `lf.example.com\\x0a${FAKE}`;
/** A line of the output that is the fake one: the name broke out of its own line. */
const brokeOut = (text: string) =>
  text.split('\n').some((line) => line.replace(/^[\s|*>-]+/, '').startsWith(FAKE));

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;
let receiver: Receiver | undefined;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'keep.example.com' }] });
  simulator.insertStored({ domain: NAME });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-line-feed-'));
  env = toolEnv(simulator, dir);
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: keep.example.com\n');
});

afterEach(async () => {
  await simulator.close();
  await receiver?.close();
  receiver = undefined;
});

describe('a record whose name holds a line feed', () => {
  it.each([['text'], ['markdown']])('is shown on its own line, escaped, in the %s plan', async (format) => {
    const run = await runCli(['--once', '--dry-run', '--prune', '-o', format], env);
    expect(run.code, run.stderr).toBe(0);
    expect(brokeOut(run.stdout)).toBe(false);
    // In Markdown the backslash is escaped too (`\\x0a`), which GitHub shows as `\x0a`.
    expect(run.stdout).toContain(`\\x0a${FAKE}`);
    expect(run.stdout).toContain('1 domain contains control characters, shown escaped.');
  });

  it('is shown on its own line, escaped, as the apply deletes it', async () => {
    const run = await runCli(['--once', '--prune', '--force'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(simulator.listWebsites().map((w) => w.domain)).toEqual(['keep.example.com']);
    expect(brokeOut(run.stdout)).toBe(false);
    expect(run.stdout).toMatch(/✓ delete lf\.example\.com\\x0aPlan: .* \(id \d+\): deleted/);
  });

  it("is escaped in a pretty log line's message: the daemon's warning about two records of one name", async () => {
    // The key of a name ignores case: two such records are one website, held twice, and with prune on
    // the plan says it deletes neither.
    simulator.insertStored({ domain: NAME.toUpperCase() });
    const daemon = startCli(['--prune', '--log-format', 'pretty'], {
      ...env,
      WEBSITES_SYNC_LOG_LEVEL: 'warn',
    });
    try {
      await untilLogged(daemon, /are one website for websites-sync/);
    } finally {
      daemon.child.kill('SIGTERM');
    }
    const { stderr } = await daemon.done;
    expect(stderr).toContain(SHOWN);
    expect(brokeOut(stderr)).toBe(false);
  });

  it('is exact in the JSON plan', async () => {
    const run = await runCli(['--once', '--dry-run', '--prune', '-o', 'json'], env);
    const plan = JSON.parse(run.stdout) as { changes: Array<{ domain: string }> };
    expect(plan.changes.map((c) => c.domain)).toEqual([NAME]);
  });

  it('is escaped where a pending delete is shown: state show and the webhook', async () => {
    receiver = await startReceiver();
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\ndelete_delay: 24h\nwebsites:\n  - domain: keep.example.com\n',
    );
    const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_NOTIFY_URL: receiver.url });
    expect(run.code, run.stderr).toBe(0);
    expect(brokeOut(run.stdout)).toBe(false);
    const shown = await runCli(['state', 'show'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(brokeOut(shown.stdout)).toBe(false);
    expect(shown.stdout).toContain(SHOWN);
    for (const event of receiver.received) expect(brokeOut(String(event.text))).toBe(false);
  });
});
