import { describe, expect, it } from 'vitest';
import { Scheduler, type Timers, type Trigger } from '../../src/daemon/scheduler.js';

/** Timers that fire only when the test says so. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      pending.set(++next, { callback, ms });
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const fire = () => {
    const [entry] = pending;
    if (!entry) throw new Error('no timer armed');
    pending.delete(entry[0]);
    entry[1].callback();
  };
  return { timers, pending, fire };
}

/** Runs that end when the test releases them. */
function controlledRuns() {
  const calls: Trigger[][] = [];
  const releases: Array<(listed?: boolean) => void> = [];
  let active = 0;
  let maxActive = 0;
  const run = (triggers: Trigger[]) => {
    calls.push(triggers);
    active++;
    maxActive = Math.max(maxActive, active);
    return new Promise<boolean | undefined>((resolve) => {
      releases.push((listed) => {
        active--;
        resolve(listed);
      });
    });
  };
  /** Ends the oldest run; `false`: it did not read the whole account (an edit's targeted read). */
  const release = async (listed?: boolean) => {
    releases.shift()!(listed);
    // Let the scheduler's continuation run.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { run, calls, release, maxActive: () => maxActive };
}

describe('Scheduler', () => {
  it('never overlaps runs and coalesces requests made during a run into exactly one follow-up', async () => {
    const { timers } = manualTimers();
    const runs = controlledRuns();
    const scheduler = new Scheduler({ run: runs.run, intervalMs: 1000, timers });
    scheduler.request('start');
    for (let i = 0; i < 5; i++) scheduler.request('change');
    scheduler.request('signal');
    expect(runs.calls).toEqual([['start']]);
    await runs.release();
    expect(runs.calls).toEqual([['start'], ['change', 'signal']]);
    await runs.release();
    expect(runs.calls).toHaveLength(2);
    expect(runs.maxActive()).toBe(1);
    expect(scheduler.busy).toBe(false);
  });

  it('arms the interval after each run, and a run that read the whole account resets it', async () => {
    const { timers, pending, fire } = manualTimers();
    const runs = controlledRuns();
    const idle: number[] = [];
    const scheduler = new Scheduler({
      run: runs.run,
      intervalMs: 1000,
      timers,
      onIdle: () => idle.push(runs.calls.length),
    });
    scheduler.request('start');
    expect(pending.size).toBe(0);
    await runs.release();
    expect([...pending.keys()]).toEqual([1]);
    scheduler.request('signal');
    await runs.release();
    // Cleared and armed again from the end of that run.
    expect([...pending.keys()]).toEqual([2]);
    fire();
    expect(runs.calls.at(-1)).toEqual(['interval']);
    await runs.release();
    expect(idle).toEqual([1, 2, 3]);
    expect(pending.size).toBe(1);
  });

  it('lets the countdown go on through runs that did not read the whole account (edits)', async () => {
    const { timers, pending, fire } = manualTimers();
    const runs = controlledRuns();
    const scheduler = new Scheduler({ run: runs.run, intervalMs: 1000, timers });
    scheduler.request('start');
    await runs.release();
    const armed = [...pending.keys()];
    // An edit every few seconds, each re-reading only what it touched: the same countdown stands.
    for (let i = 0; i < 3; i++) {
      scheduler.request('change');
      await runs.release(false);
      expect([...pending.keys()]).toEqual(armed);
    }
    // Due during an edit's run: the resync follows it.
    scheduler.request('change');
    fire();
    expect(runs.calls.at(-1)).toEqual(['change']);
    await runs.release(false);
    expect(runs.calls.at(-1)).toEqual(['interval']);
    await runs.release();
    expect(pending.size).toBe(1);
  });

  it('drops an interval that came due during a run that read the whole account', async () => {
    const { timers, pending, fire } = manualTimers();
    const runs = controlledRuns();
    const scheduler = new Scheduler({ run: runs.run, intervalMs: 1000, timers });
    scheduler.request('start');
    await runs.release();
    scheduler.request('signal');
    fire();
    await runs.release();
    expect(runs.calls).toEqual([['start'], ['signal']]);
    expect(scheduler.busy).toBe(false);
    expect(pending.size).toBe(1);
  });

  it('stop() starts nothing new, disarms the interval and waits for the run in progress', async () => {
    const { timers, pending } = manualTimers();
    const runs = controlledRuns();
    const scheduler = new Scheduler({ run: runs.run, intervalMs: 1000, timers });
    scheduler.request('start');
    scheduler.request('change');
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    await runs.release();
    await stopping;
    scheduler.request('signal');
    expect(runs.calls).toEqual([['start']]);
    expect(pending.size).toBe(0);
  });

  it('keeps scheduling after a run throws', async () => {
    const errors: unknown[] = [];
    const calls: Trigger[][] = [];
    const scheduler = new Scheduler({
      run: async (triggers) => {
        calls.push(triggers);
        if (calls.length === 1) throw new Error('boom');
        return undefined;
      },
      intervalMs: 1000,
      timers: manualTimers().timers,
      onError: (error) => errors.push(error),
    });
    scheduler.request('start');
    await new Promise((resolve) => setImmediate(resolve));
    scheduler.request('signal');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([['start'], ['signal']]);
    expect(errors).toHaveLength(1);
  });
});
