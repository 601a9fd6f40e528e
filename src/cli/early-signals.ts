// The process's signal handlers, installed before any other work: the first lines of main.ts, before
// the commands are even loaded (this file is bundled into main.js itself, and imports nothing). Until
// then Node's default action kills the process on SIGHUP, SIGTERM or SIGINT, with nothing logged or
// saved. A signal that arrives before a command listens for it is held and handed to the command once it
// does: the daemon's SIGHUP becomes a resync once it is ready, a SIGTERM a clean stop once it can (the
// daemon's shutdown, `--once`'s interruption, cli/interrupt.ts). A command that handles no signals gives
// them back to Node's default (`release`).

import type { SignalSource } from '../daemon/index.js';

type Listener = (signal: NodeJS.Signals) => void;

/** The signals caught from the first instant: those the daemon and `--once` act on. */
const CAUGHT: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Signals held before anyone listens, at most (a burst of Ctrl-C is not worth more). */
const MAX_HELD = 8;

/** The process's signals, caught from the first instant, as a command takes them over. */
export interface ProcessSignals extends SignalSource {
  /**
   * Gives `signals` (default: all) back to Node's default action, for a command that does not handle
   * them; one that arrived meanwhile is raised again, so it acts as it would have.
   */
  release(signals?: readonly NodeJS.Signals[]): Promise<void>;
}

/** Installs the process's signal handlers; call it before anything else. */
export function catchSignals(): ProcessSignals {
  const listeners = new Map<NodeJS.Signals, Set<Listener>>();
  const held: NodeJS.Signals[] = [];
  const deliver = (signal: NodeJS.Signals): void => {
    const current = [...(listeners.get(signal) ?? [])];
    if (current.length === 0) {
      if (held.length < MAX_HELD) held.push(signal);
      return;
    }
    for (const listener of current) listener(signal);
  };
  const caught = new Set(CAUGHT);
  for (const signal of caught) process.on(signal, deliver);
  return {
    on(signal, listener) {
      listeners.set(signal, (listeners.get(signal) ?? new Set()).add(listener));
      const waiting = held.filter((s) => s === signal);
      if (waiting.length === 0) return;
      held.splice(0, held.length, ...held.filter((s) => s !== signal));
      // As a real signal is: on a later turn of the event loop, once the command is set up.
      setImmediate(() => {
        for (const s of waiting) deliver(s);
      });
    },
    off(signal, listener) {
      listeners.get(signal)?.delete(listener);
    },
    async release(signals = CAUGHT) {
      // Start-up may not have given the event loop a turn yet (modules load synchronously): a signal
      // received meanwhile still waits in the loop to be handed over, and would be lost with the
      // handler. Two turns: one ends the current pass, the next polls what arrived during it.
      for (let turn = 0; turn < 2; turn++) await new Promise((next) => setImmediate(next));
      for (const signal of signals) {
        if (!caught.delete(signal)) continue;
        process.off(signal, deliver);
        if (held.includes(signal)) process.kill(process.pid, signal);
      }
    },
  };
}

/**
 * Tests only (`WEBSITES_SYNC_TEST_HOLD_START`): once the handlers are installed, start-up waits for a line
 * on stdin, so that a test can send a signal at the moment the process is least ready for it.
 */
export async function holdStartForTests(env: NodeJS.ProcessEnv): Promise<void> {
  if (!env.WEBSITES_SYNC_TEST_HOLD_START) return;
  process.stderr.write('websites-sync: start-up held (WEBSITES_SYNC_TEST_HOLD_START)\n');
  await new Promise<void>((resume) => {
    process.stdin.once('data', () => resume());
    process.stdin.once('end', () => resume());
  });
  process.stdin.destroy();
}
