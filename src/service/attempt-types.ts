// What every attempt (retries included) reports, in a file of its own so the transport, the pacer and
// the attempt interceptor can share it without importing each other.

export interface AttemptInfo {
  method: string;
  path: string;
  /** HTTP status, or undefined when the attempt failed below HTTP (reset, timeout). */
  status: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  error?: Error;
}

/** A failed attempt that will be tried again, and how long until then. */
export interface RetryInfo {
  method: string;
  path: string;
  /** The HTTP status, or the network failure's code. */
  reason: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
}

export interface RateWindowInfo {
  /** The window `--rate-window` configured. */
  configuredMs: number;
  /** The window the answers show: at most this long (a count climbing back) or this long (a 429). */
  observedMs: number;
}

/** Seen by every attempt, retries included: pacing and metrics plug in here. */
export interface AttemptHooks {
  /** A retry is scheduled: the CLI logs it, so a wait of seconds is never silent. */
  onRetry?: (info: RetryInfo) => void;
  /** The answers show a rate-limit window other than the one configured (`--rate-window`). */
  onRateWindow?: (info: RateWindowInfo) => void;
  /**
   * Awaited before each attempt is sent (pacing). A wait gives up its place when `signal` aborts (the
   * run is stopping): it then rejects with the signal's reason.
   */
  beforeAttempt?: (signal?: AbortSignal) => Promise<void> | undefined;
  afterAttempt?: (info: AttemptInfo) => void;
}
