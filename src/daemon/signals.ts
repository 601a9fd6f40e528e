// Signals as the daemon understands them: SIGHUP asks for a run, SIGTERM and SIGINT for a graceful
// shutdown. The source is injectable so tests emit signals without touching the test runner's process.

export type SignalListener = (signal: NodeJS.Signals) => void;

/** `process`, or any emitter of signal names (tests). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: SignalListener): unknown;
  off(signal: NodeJS.Signals, listener: SignalListener): unknown;
}

export interface SignalHandlers {
  reload: () => void;
  shutdown: (signal: NodeJS.Signals) => void;
}

/** Installs the handlers; returns their removal. */
export function bindSignals(source: SignalSource, handlers: SignalHandlers): () => void {
  const reload: SignalListener = () => handlers.reload();
  const shutdown: SignalListener = (signal) => handlers.shutdown(signal);
  // Installing a SIGTERM/SIGINT handler is also what makes node exit cleanly as PID 1 in a container.
  source.on('SIGHUP', reload);
  source.on('SIGTERM', shutdown);
  source.on('SIGINT', shutdown);
  return () => {
    source.off('SIGHUP', reload);
    source.off('SIGTERM', shutdown);
    source.off('SIGINT', shutdown);
  };
}
