import { describe, expect, it } from 'vitest';
import { LiveOutput, Progress } from '../../src/cli/live.js';
import { computePlan } from '../../src/plan/index.js';
import { emptyState } from '../../src/state/index.js';
import { desiredSite, desiredState } from '../helpers/builders.js';

/** A real plan creating these domains. */
function planOf(...domains: string[]) {
  return computePlan({
    desired: desiredState(domains.map((d) => desiredSite(d))),
    current: [],
    state: emptyState('https://stats.example.com'),
    prune: false,
  });
}

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, write: (text: string) => writes.push(text) };
}

describe('the progress line of a long apply', () => {
  it('shows done/total and the time left from the pace so far', () => {
    let now = 0;
    const progress = new Progress(stream(true), () => now);
    progress.start(900);
    for (let i = 0; i < 120; i += 1) {
      now += 1_000;
      progress.tick();
    }
    // 120 done in 2 minutes: 780 left at one a second.
    expect(progress.line()).toBe('[120/900] 13%, about 13m left');
  });

  it('is drawn in place on stderr and erased before an operation line lands on stdout', () => {
    let now = 0;
    const out = stream(false);
    const err = stream(true);
    const live = new LiveOutput(out, err, false, () => now);
    live.plan(planOf('a.example.com', 'b.example.com'));
    now = 1_000;
    live.outcome({ action: 'create', domain: 'a.example.com', id: 1, result: 'created' });
    expect(err.writes.at(-1)).toBe('\r\u001b[K[1/2] 50%, about 1s left');
    live.outcome({ action: 'create', domain: 'b.example.com', id: 2, result: 'created' });
    expect(err.writes.at(-2)).toBe('\r\u001b[K');
    expect(out.writes.at(-1)).toBe('✓ create b.example.com (id 2): created\n');
    expect(out.writes[0]).toContain('+ a.example.com');
  });

  it('stays off stderr when it is not a terminal', () => {
    const err = stream(false);
    const live = new LiveOutput(stream(false), err, false);
    live.plan(planOf('a.example.com'));
    live.outcome({ action: 'create', domain: 'a.example.com', id: 1, result: 'created' });
    expect(err.writes).toEqual([]);
  });
});
