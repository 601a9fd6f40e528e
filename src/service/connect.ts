import pLimit from 'p-limit';
import type { AttemptHooks } from './attempt-types.js';
import type { RateBudget } from './budget.js';
import { HttpWebsiteService } from './client.js';
import type { Redact } from './errors.js';
import { HttpTransport } from './http.js';
import type { RetryTuning } from './retry-policy.js';

export interface ConnectOptions {
  baseUrl: string;
  apiKey: string;
  version: string;
  timeoutMs: number;
  concurrency: number;
  /** Sees every attempt, retries included (the daemon counts requests by status). */
  hooks?: AttemptHooks;
  /** `--rate-window`: the service's rate-limit window, which it does not announce. */
  rateWindowMs?: number;
  /** `--rate-budget`: the share of the key's limit attempts may use. */
  budget?: RateBudget;
  /** Masks the run's secrets (the API key, the manifest's passwords) in what the service answers. */
  redact: Redact;
  /** The retries' count and pauses (DEFAULT_RETRY; tests shorten the pauses). */
  retry?: Partial<RetryTuning>;
  /** What a refusal of the key part-way says to do (default: set the new key and run again). */
  keyAdvice?: string;
}

/** The part of the settings the service client takes as it is. */
export type ConnectionSettings = Pick<ConnectOptions, 'timeoutMs' | 'rateWindowMs' | 'concurrency'>;

/** One client per process: its sockets and retry state live as long as the process. */
export function connectService(options: ConnectOptions): {
  service: HttpWebsiteService;
  /** Sends nothing more (a stop was asked for): requests in flight finish, others fail as NotSentError. */
  stop: () => void;
  close: () => Promise<void>;
} {
  const http = new HttpTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    userAgent: `websites-sync/${options.version}`,
    timeoutMs: options.timeoutMs,
    hooks: options.hooks,
    redact: options.redact,
    ...(options.keyAdvice ? { keyAdvice: options.keyAdvice } : {}),
    ...(options.rateWindowMs ? { rateWindowMs: options.rateWindowMs } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  // The one limiter of the run: the sockets follow from it (a unit of work sends one request at a time).
  const service = new HttpWebsiteService(http, { limit: pLimit(Math.max(1, options.concurrency)) });
  return { service, stop: () => http.stop(), close: () => http.close() };
}
