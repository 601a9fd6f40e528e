import { describe, expect, it } from 'vitest';
import { LiveOutput, PROGRESS_MIN_TIME_LEFT_MS, Progress } from '../../src/cli/live.js';
import { createLogger } from '../../src/cli/logger.js';
import { StatusLine } from '../../src/cli/status-line.js';
import { Redactor, terminalText } from '../../src/model/index.js';
import { computePlan } from '../../src/plan/index.js';
import { emptyState } from '../../src/state/index.js';
import { desiredSite, desiredState } from '../helpers/builders.js';

/** A real plan creating this many domains. */
function planOf(count: number) {
  const domains = Array.from({ length: count }, (_, i) => `site${i}.example.com`);
  return computePlan({
    desired: desiredState(domains.map((d) => desiredSite(d))),
    current: [],
    state: emptyState('https://stats.example.com'),
    prune: false,
  });
}

/** A stream that records what the process's stream would write (its text through `terminalText`). */
function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, write: (text: string) => writes.push(terminalText(text)) };
}

const ESC = String.fromCharCode(27);
const ERASE_OR_BREAK = new RegExp(`(\r|\n|${ESC}\\[K)`);

/** What a terminal shows for these writes: `\r` returns to the line's start, `ESC[K` erases to its end. */
function screen(writes: readonly string[]): string[] {
  const lines = [''];
  for (const text of writes) {
    for (const part of text.split(ERASE_OR_BREAK)) {
      if (part === '\r' || part === '\u001b[K') lines[lines.length - 1] = '';
      else if (part === '\n') lines.push('');
      else lines[lines.length - 1] += part;
    }
  }
  return lines;
}

function created(id: number) {
  return { action: 'create' as const, domain: `site${id}.example.com`, id, result: 'created' as const };
}

describe('the progress line of a long apply', () => {
  it('shows done/total and the time left from the pace so far', () => {
    let now = 0;
    const progress = new Progress(new StatusLine(stream(true)), () => now);
    progress.start(900);
    for (let i = 0; i < 120; i += 1) {
      now += 1_000;
      progress.tick();
    }
    // 120 done in 2 minutes: 780 left at one a second.
    expect(progress.line()).toBe('[120/900] 13%, about 13m left');
  });

  it('is not shown for a run whose time left is short (two operations of a second each)', () => {
    let now = 0;
    const err = stream(true);
    const status = new StatusLine(err);
    const live = new LiveOutput(status.guard(fakeIo(stream(false), err)).stdout, status, false, () => now);
    live.plan(planOf(2));
    now = 1_000;
    live.outcome(created(1));
    now = 2_000;
    live.outcome(created(2));
    live.finish();
    expect(err.writes).toEqual([]);
  });

  it(`appears once the time left is at least ${PROGRESS_MIN_TIME_LEFT_MS / 1000}s, and stays last, under each operation`, () => {
    let now = 0;
    const out = stream(false);
    const err = stream(true);
    const status = new StatusLine(err);
    const live = new LiveOutput(status.guard(fakeIo(out, err)).stdout, status, false, () => now);
    live.plan(planOf(30));
    now = 1_000;
    live.outcome(created(1));
    expect(err.writes.at(-1)).toBe('\r\u001b[K[1/30] 3%, about 29s left');
    now = 2_000;
    live.outcome(created(2));
    // Erased before the operation's line lands on stdout, then drawn again with the new count.
    expect(err.writes.slice(-2)).toEqual(['\r\u001b[K', '\r\u001b[K[2/30] 6%, about 28s left']);
    expect(out.writes.at(-1)).toBe('✓ create site2.example.com (id 2): created\n');
    live.finish();
    expect(err.writes.at(-1)).toBe('\r\u001b[K');
  });

  it('is erased before a log line and any other message on the terminal, and drawn again after', () => {
    let now = 0;
    const term: string[] = [];
    // As the process's streams show text (processIo: through the redactor's `show`).
    const redactor = new Redactor();
    const tty = { isTTY: true, write: (text: string) => term.push(redactor.show(text)) };
    const status = new StatusLine(tty);
    const io = status.guard(fakeIo(tty, tty));
    const logger = createLogger({ level: 'warn', format: 'json', redactor, statusLine: status });
    const live = new LiveOutput(io.stdout, status, false, () => now);
    live.plan(planOf(30));
    now = 1_000;
    live.outcome(created(1));
    logger.error({ domain: 'site2.example.com' }, 'create failed');
    io.stderr.write('websites-sync: stopping: no new operations\n');
    const lines = screen(term);
    const logLine = lines.find((line) => line.includes('create failed'));
    expect(logLine?.startsWith('{')).toBe(true);
    expect(lines).toContain('websites-sync: stopping: no new operations');
    expect(lines.at(-1)).toBe('[1/30] 3%, about 29s left');
    live.finish();
    expect(screen(term).at(-1)).toBe('');
  });

  it('stays off stderr when it is not a terminal', () => {
    let now = 0;
    const err = stream(false);
    const status = new StatusLine(err);
    const live = new LiveOutput(stream(false), status, false, () => now);
    live.plan(planOf(30));
    now = 1_000;
    live.outcome(created(1));
    expect(err.writes).toEqual([]);
  });
});

function fakeIo(stdout: { write(text: string): unknown }, stderr: { write(text: string): unknown }) {
  return {
    stdout: stdout as unknown as NodeJS.WritableStream,
    stderr: stderr as unknown as NodeJS.WritableStream,
    env: {},
    redactor: new Redactor(),
  };
}
