import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { HAS_SCRIPT, runOnTerminal } from '../helpers/terminal.js';

// Issue 19 §2: the service accepts any byte but a line feed in a name. A record named with terminal
// escapes must not take over the reviewer's terminal: every output shows them escaped, checked here on
// the bytes the built CLI writes (stdout, stderr, the log, a Markdown file, a webhook's body).
const HOSTILE = [
  '\u001bc.reset.example.com', // ESC c: resets the terminal, wiping the plan above it
  '\u001b[8mhidden.example.com', // ESC [8m: everything after it is invisible
  'cr.example.com\rNo changes. 1 website(s) match the manifest.', // CR: the line is overwritten
  '\u202emoc.elpmaxe.desrever', // a right-to-left override: the name reads backwards
  'zero\u200bwidth.example.com', // looks like zerowidth.example.com
];
/** C0 controls but line feed, DEL, C1, bidirectional and zero-width characters, raw. */
const RAW_SOURCE =
  '[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060\\u2066-\\u2069\\ufeff]';
const RAW = new RegExp(RAW_SOURCE);
/** The escape a person sees for each such character (`\x1b`, `\u202e`). */
const shown = (name: string) =>
  name.replace(new RegExp(RAW_SOURCE, 'g'), (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });

const ESC = String.fromCharCode(27);

let simulator: Simulator;
let dir: string;
let env: Record<string, string>;
let receiver: Receiver | undefined;

beforeEach(async () => {
  simulator = await startSimulator({ websites: [{ domain: 'keep.example.com' }] });
  for (const domain of HOSTILE) simulator.insertStored({ domain });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-escapes-'));
  env = toolEnv(simulator, dir);
  await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: keep.example.com\n');
});

afterEach(async () => {
  await simulator.close();
  await receiver?.close();
  receiver = undefined;
});

describe('a record named with terminal escapes', () => {
  it('is shown escaped in the text plan, which says so, and nothing raw reaches stdout or stderr', async () => {
    const run = await runCli(['--once', '--dry-run', '--prune', '--log-level', 'debug'], {
      ...env,
      FORCE_COLOR: '1',
    });
    expect(run.code, run.stderr).toBe(0);
    // The tool's own colours stay; nothing else is a control character.
    expect(run.stdout.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')).not.toMatch(RAW);
    expect(run.stderr).not.toMatch(RAW);
    for (const name of HOSTILE) expect(run.stdout).toContain(shown(name));
    expect(run.stdout).toContain('5 domains contain control characters, shown escaped.');
  });

  it('is shown escaped in the Markdown plan written to a file', async () => {
    const run = await runCli(['--once', '--dry-run', '--prune', '-o', 'markdown'], env);
    expect(run.code, run.stderr).toBe(0);
    await writeFile(join(dir, 'plan.md'), run.stdout);
    const markdown = await readFile(join(dir, 'plan.md'), 'utf8');
    expect(markdown).not.toMatch(RAW);
    expect(markdown).toContain('\\x1b');
    expect(markdown).toContain('\\u202e');
    expect(markdown).toContain('5 domains contain control characters, shown escaped.');
  });

  it('stays exact in the JSON plan, which parses, and whose bytes hold no raw control', async () => {
    const run = await runCli(['--once', '--dry-run', '--prune', '-o', 'json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW);
    const plan = JSON.parse(run.stdout) as {
      changes: Array<{ action: string; domain: string }>;
      summary: { domains_with_controls?: number };
    };
    const deletes = plan.changes.filter((c) => c.action === 'delete').map((c) => c.domain);
    expect(deletes.sort()).toEqual([...HOSTILE].sort());
    expect(plan.summary.domains_with_controls).toBe(5);
  });

  it('reaches JSON log lines exact (as JSON escapes), with no raw control in their bytes', async () => {
    const run = await runCli(['--once', '--prune', '--log-format', 'json', '--log-level', 'info'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(RAW);
    const lines = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { domain?: string });
    expect(
      lines.map((line) => line.domain).filter((d) => d !== undefined && d !== 'keep.example.com'),
    ).toEqual(expect.arrayContaining(HOSTILE));
  });

  it('reaches pretty log lines escaped', async () => {
    const run = await runCli(['--once', '--prune', '--log-format', 'pretty', '--log-level', 'info'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.stderr).toContain(shown(HOSTILE[1]!));
  });

  it('is escaped in a webhook body, which keeps the exact names in `websites`', async () => {
    receiver = await startReceiver();
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nprune: true\ndelete_delay: 24h\nwebsites:\n  - domain: keep.example.com\n',
    );
    const run = await runCli(['--once'], { ...env, WEBSITES_SYNC_NOTIFY_URL: receiver.url });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW);
    expect(run.stderr).not.toMatch(RAW);
    expect(receiver.bodies.length).toBeGreaterThan(0);
    for (const body of receiver.bodies) expect(body).not.toMatch(RAW);
    const named = receiver.received.flatMap((event) => event.websites as string[]);
    expect(named).toEqual(expect.arrayContaining(HOSTILE));
    for (const event of receiver.received) expect(event.text).not.toMatch(RAW);
  });

  it('is exported double-quoted with YAML escapes, and the export reads back as the same names', async () => {
    const out = join(dir, 'exported.yaml');
    const exported = await runCli(['export', '--out', out], env);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(out, 'utf8');
    expect(text).not.toMatch(RAW);
    expect(text).toContain('"\\u202emoc.elpmaxe.desrever"');
    const run = await runCli(['--once', '--dry-run', '--prune', '-f', out, '-o', 'json'], env);
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as { summary: { delete: number; create: number } };
    expect(plan.summary).toMatchObject({ delete: 0, create: 0 });
  });
});

describe("the manifest's own values", () => {
  it('are quoted escaped in its messages: a domain written with YAML escapes', async () => {
    await writeFile(
      join(dir, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: "\\e[8mbad\\u202e.example.com"\n    privcy: public\n',
    );
    const run = await runCli(['validate'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('privcy');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(RAW);
    expect(run.stderr).toContain('\\x1b[8mbad\\u202e.example.com');
  });
});

describe.skipIf(!HAS_SCRIPT)('on a real terminal', () => {
  it('the coloured plan, the operations and the pretty logs carry no code but the tool own colours', async () => {
    const run = await runOnTerminal(['--once', '--prune', '--log-level', 'info'], {
      ...env,
      NO_COLOR: undefined,
    });
    expect(run.code, run.raw).toBe(0);
    // The terminal turns each line feed into CR LF; the colours are SGR codes of the tool or pino-pretty.
    const rest = run.raw.replaceAll('\r\n', '\n').replaceAll(new RegExp(`${ESC}\\[[\\d;]*m`, 'g'), '');
    expect(rest).not.toMatch(RAW);
    expect(run.raw).toContain(`${ESC}[`);
    expect(rest).toContain(`delete ${shown(HOSTILE[0]!)}`);
    expect(rest).toContain(`domain: "${shown(HOSTILE[3]!)}"`);
  });
});
