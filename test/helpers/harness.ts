import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import pino from 'pino';
import { parseManifest } from '../../src/manifest/index.js';
import { type ReconcileResult, reconcile } from '../../src/reconcile/reconcile.js';
import { HttpWebsiteService } from '../../src/service/client.js';
import { HttpTransport } from '../../src/service/http.js';
import { connectService as connect } from '../../src/service/index.js';
import type { RetryTuning } from '../../src/service/retry-policy.js';
import type { RecordedRequest, Simulator } from '../../src/simulator/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';

export const API_KEY = 'test-key';

export async function tempStatePath(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'websites-sync-')), 'state.json');
}

export interface SyncOptions {
  simulator: Simulator;
  manifest: string;
  statePath: string;
  /** Instead of the file at statePath (a PostgreSQL state). */
  store?: StateStore;
  env?: Record<string, string>;
  dryRun?: boolean;
  prune?: boolean;
  force?: boolean;
  apiKey?: string;
  concurrency?: number;
  /** Retry tuning (small delays keep fault tests fast); without it, the client is built as `connect` does. */
  retry?: Partial<RetryTuning>;
  /** Per-attempt timeout; default 5 s. */
  timeoutMs?: number;
  /** `--rate-window`: the service's window, known to the pacer from the start. */
  rateWindowMs?: number;
}

/** One reconcile pass through the real client against the simulator, as `--once` does it. */
export async function syncOnce(options: SyncOptions): Promise<ReconcileResult> {
  const parsed = parseManifest(options.manifest, { file: 'websites.yaml', env: options.env ?? {} });
  if (!parsed.desired) throw new Error(`test manifest invalid: ${JSON.stringify(parsed.problems)}`);
  const concurrency = options.concurrency ?? 4;
  const client = connectForTest(options, concurrency);
  try {
    return await reconcile({
      desired: parsed.desired,
      warnings: [],
      service: client.service,
      baseUrl: options.simulator.url,
      secret: 'test-secret',
      state: options.store ?? (await openStateStore({ location: options.statePath })),
      prune: (options.prune ?? false) || parsed.desired.prune,
      force: options.force ?? false,
      dryRun: options.dryRun ?? false,
      concurrency,
      logger: pino({ level: 'silent' }),
    });
  } finally {
    await client.close();
  }
}

function connectForTest(options: SyncOptions, concurrency: number) {
  const common = { baseUrl: options.simulator.url, apiKey: options.apiKey ?? API_KEY };
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!options.retry)
    return connect({ ...common, version: 'test', timeoutMs, concurrency, redact: (text) => text });
  const http = new HttpTransport({
    ...common,
    userAgent: 'websites-sync/test',
    timeoutMs,
    connections: concurrency,
    retry: options.retry,
    ...(options.rateWindowMs ? { rateWindowMs: options.rateWindowMs } : {}),
  });
  return { service: new HttpWebsiteService(http, { limit: pLimit(concurrency) }), close: () => http.close() };
}

/** Requests to the API, as "METHOD path" lines, for exact request-count assertions. */
export function apiCalls(simulator: Simulator): string[] {
  return simulator.requests.filter(isApi).map((r) => `${r.method} ${r.path}`);
}

/** The guards' reads (issue 20): the account's plan once per run, a website's traffic before its delete. */
export function isGuardRead(request: { method: string; path: string }): boolean {
  return request.method === 'GET' && /^\/api\/v1\/(account|stats\/)/.test(request.path);
}

/** The requests to the websites API only, in arrival order: what a test of its costs counts. */
export function websiteRequests(simulator: Simulator): RecordedRequest[] {
  return simulator.requests.filter((r) => isApi(r) && !isGuardRead(r));
}

/** `apiCalls` without the guards' reads. */
export function websiteCalls(simulator: Simulator): string[] {
  return websiteRequests(simulator).map((r) => `${r.method} ${r.path}`);
}

export function writeCalls(simulator: Simulator): RecordedRequest[] {
  return simulator.requests.filter((r) => isApi(r) && r.method !== 'GET');
}

function isApi(request: RecordedRequest): boolean {
  return request.path.startsWith('/api/v1/');
}
