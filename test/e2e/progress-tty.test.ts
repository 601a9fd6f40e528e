import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { toolEnv } from '../helpers/cli.js';
import { HAS_SCRIPT, runOnTerminal as runOnTerminalWith } from '../helpers/terminal.js';

// Issue 12 §2, on a real terminal: the built CLI runs under `script`, which gives it a pseudo-terminal
// for stdout and stderr, as a person at a terminal has. What the terminal shows is rebuilt from the
// bytes (carriage returns and "erase line" included), so the test sees the screen the user sees.

const PROGRESS = /\[\d+\/\d+\] \d+%/;

let simulator: Simulator;
let env: Record<string, string>;

afterEach(async () => {
  simulator.onRequest = undefined;
  await simulator.close();
});

async function start(domains: string[], taken: string[] = []): Promise<void> {
  simulator = await startSimulator({ websites: [], takenDomains: taken });
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-tty-'));
  const lines = domains.map((d) => `  - domain: ${d}`);
  await writeFile(join(dir, 'websites.yaml'), `version: 1\nwebsites:\n${lines.join('\n')}\n`);
  env = toolEnv(simulator, dir);
}

/** The CLI on a pseudo-terminal, with the simulator's environment. */
const runOnTerminal = (args: string[]) => runOnTerminalWith(args, env);

/** The lines a terminal shows for `raw`: `\r` returns to the line's start, `ESC[K` erases to its end. */
function screen(raw: string): string[] {
  const lines = [''];
  let column = 0;
  for (let i = 0; i < raw.length; i++) {
    const last = lines.length - 1;
    if (raw.startsWith('\u001b[K', i)) {
      lines[last] = lines[last]!.slice(0, column);
      i += 2;
    } else if (raw[i] === '\r') {
      column = 0;
    } else if (raw[i] === '\n') {
      lines.push('');
      column = 0;
    } else {
      const line = lines[last]!.padEnd(column);
      lines[last] = line.slice(0, column) + raw[i] + line.slice(column + 1);
      column += 1;
    }
  }
  return lines;
}

describe.skipIf(!HAS_SCRIPT)('the progress line on a terminal', () => {
  it('is not shown for a run that ends in moments', async () => {
    await start(['a.example.com', 'b.example.com']);
    const run = await runOnTerminal(['--once']);
    expect(run.code, run.raw).toBe(0);
    expect(run.raw).toContain('✓ create b.example.com');
    expect(run.raw).not.toMatch(PROGRESS);
  });

  it('is erased before a log line, which never lands on the progress line', async () => {
    // 21 creates, the first answered slowly: at that pace the rest would take long, so progress shows.
    // The one before the failing create is slow too, so the line is surely drawn (not only updated)
    // when the failure is logged.
    const domains = Array.from({ length: 20 }, (_, i) => `site${String(i).padStart(2, '0')}.example.com`);
    await start([...domains, 'zz-taken.example.com'], ['zz-taken.example.com']);
    const slowAnswers = new Map([
      [1, 1500],
      [20, 500],
    ]);
    let creates = 0;
    simulator.onRequest = async (req) => {
      if (req.method !== 'POST') return;
      const delay = slowAnswers.get(++creates);
      if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
    };
    const run = await runOnTerminal(['--once', '--concurrency', '1']);
    expect(run.code, run.raw).toBe(1);
    expect(run.raw).toMatch(/\[\d+\/21\] \d+%, about \S+ left/);
    const shown = screen(run.raw);
    const error = shown.find((line) => line.includes('create failed'));
    expect(error, run.raw).toBeDefined();
    expect(error).not.toMatch(PROGRESS);
    // Erased at the end: the last lines are the summary, not a progress line.
    expect(shown.filter((line) => PROGRESS.test(line))).toEqual([]);
  });
});
