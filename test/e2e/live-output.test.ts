import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, startCli, toolEnv } from '../helpers/cli.js';

// Issue 12 §2: like `terraform apply`, the plan comes first, then a line per operation as it completes,
// then the summary; failures stand out; a terminal sees warnings, not INFO lines, unless asked.
let simulator: Simulator;
let env: Record<string, string>;

afterEach(async () => {
  simulator.onRequest = undefined;
  await simulator.close();
});

async function start(domains: string[], options: { taken?: string[] } = {}): Promise<void> {
  simulator = await startSimulator({ websites: [], takenDomains: options.taken ?? [] });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-live-'));
  const lines = domains.map((d) => `  - domain: ${d}`);
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${lines.join('\n')}\n`);
  env = toolEnv(simulator, dir);
}

describe('--once prints the plan before applying it', () => {
  it('the plan is on stdout before the first create reaches the service; then one line per operation', async () => {
    await start(['a.example.com', 'b.example.com']);
    const cli = startCli(['--once', '--concurrency', '1'], env);
    let seenAtFirstCreate: string | undefined;
    simulator.onRequest = (req) => {
      if (req.method === 'POST') seenAtFirstCreate ??= cli.output().stdout;
    };
    const { code, stdout } = await cli.done;
    expect(code).toBe(0);
    expect(seenAtFirstCreate).toContain('+ a.example.com');
    expect(seenAtFirstCreate).toContain('Plan: 2 to create');
    expect(seenAtFirstCreate).not.toContain('✓');
    const order = [
      '+ a.example.com',
      'Plan: 2 to create',
      '✓ create a.example.com',
      '✓ create b.example.com',
      'Apply complete',
    ];
    const positions = order.map((text) => stdout.indexOf(text));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
  });

  it('a failed create stands out in red in the final report, not as a green +', async () => {
    await start(['mine.example.com', 'theirs.example.com'], { taken: ['theirs.example.com'] });
    const run = await runCli(['--once'], { ...env, FORCE_COLOR: '1' });
    expect(run.code).toBe(1);
    const RED = '\u001b[31m';
    const summary = run.stdout.slice(run.stdout.indexOf(`${RED}Apply finished`));
    expect(summary.startsWith(`${RED}Apply finished with failures: 1 created`)).toBe(true);
    expect(summary).toContain(`${RED}  ✗ create theirs.example.com: `);
    // The operation's own line, as it completed: red ✗, beside the green ✓ of the one that succeeded.
    expect(run.stdout).toContain(`${RED}✗ create theirs.example.com: `);
    expect(run.stdout).toContain('\u001b[32m✓\u001b[0m create mine.example.com');
  });
});

describe('logs in the human output', () => {
  it('pretty logs (a terminal) show warnings only, unless --log-level asks', async () => {
    await start(['a.example.com']);
    const quiet = await runCli(['--once', '--dry-run', '--log-format', 'pretty'], env);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/INFO/);
    const chatty = await runCli(
      ['--once', '--dry-run', '--log-format', 'pretty', '--log-level', 'info'],
      env,
    );
    expect(chatty.stderr).toMatch(/INFO.*plan computed/);
  });

  it('JSON logs (not a terminal) keep the info lines, as a CI log or a collector expects', async () => {
    await start(['a.example.com']);
    const run = await runCli(['--once', '--dry-run'], env);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('plan computed');
  });

  it('refuses an unknown --log-format', async () => {
    await start([]);
    const run = await runCli(['--once', '--log-format', 'xml'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--log-format: "xml" is not a format; use json or pretty');
  });
});
