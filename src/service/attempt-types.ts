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

/** Seen by every attempt, retries included: pacing and metrics plug in here. */
export interface AttemptHooks {
  /** Awaited before each attempt is sent (pacing). */
  beforeAttempt?: () => Promise<void> | undefined;
  afterAttempt?: (info: AttemptInfo) => void;
}
