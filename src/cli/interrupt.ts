// SIGINT / SIGTERM for the one-shot commands. Node exits at once on either only while no handler is
// installed, and as PID 1 in a container the kernel does not even do that: the signal is ignored. A
// handler therefore turns the first signal into a graceful stop (no new operations, the ones in flight
// finish, the state is saved, the summary printed) and a second one into an immediate exit.
//
// The process's handlers are installed before anything else (early-signals.ts): `source` is what they
// hand a signal to.

import type { SignalSource } from '../daemon/index.js';

export interface Interruption {
  readonly signal: AbortSignal;
  /** The signal that asked for the stop, once one has. */
  readonly received: NodeJS.Signals | undefined;
  dispose(): void;
}

/** 130 after SIGINT, 143 after SIGTERM: 128 + the signal's number, as a shell reports it. */
export function exitCodeOf(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}

/** `source`: the process's signals as main.ts caught them (a signal held since start-up comes now). */
export function interruptOnSignals(
  stderr: NodeJS.WritableStream,
  what: string,
  source: SignalSource = process,
): Interruption {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      stderr.write(`websites-sync: ${signal} again: stopping now\n`);
      process.exit(exitCodeOf(signal));
    }
    received = signal;
    stderr.write(`websites-sync: ${signal}: ${what} (${signal} again stops at once)\n`);
    controller.abort(signal);
  };
  source.on('SIGINT', onSignal);
  source.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      source.off('SIGINT', onSignal);
      source.off('SIGTERM', onSignal);
    },
  };
}
