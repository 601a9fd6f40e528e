// Real HTTP against a running simulator, as the tool's client would talk to the service.

import type { Simulator } from '../../src/simulator/index.js';

// Response bodies are arbitrary JSON the tests index into freely; `any` keeps assertions readable.
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = any;

export interface CallOptions {
  form?: Record<string, string>;
  query?: Record<string, string>;
  /** API key to send; null sends no Authorization header. Default: the simulator's key. */
  key?: string | null;
  /** Send `Accept: application/json` (default true). */
  acceptJson?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: Json;
}

export async function call(
  sim: Simulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const url = new URL(`${sim.url}${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? sim.apiKey : options.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (options.acceptJson ?? true) headers.Accept = 'application/json';
  let body: string | undefined;
  if (options.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const init: RequestInit = { method, headers, redirect: 'manual' };
  if (body !== undefined) init.body = body;
  if (options.signal) init.signal = options.signal;
  const response = await fetch(url, init);
  const text = await response.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The outcome of a request as a comparable string: the status, or the kind of network failure. */
export async function outcome(
  sim: Simulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<string> {
  try {
    const result = await call(sim, method, path, options);
    return String(result.status);
  } catch {
    return 'network-error';
  }
}

export const WEBSITES = '/api/v1/websites';
