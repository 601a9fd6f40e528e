// The proxy a request to the service goes through, read from the environment as undici's
// EnvHttpProxyAgent (http.ts) reads it: for an http:// service http_proxy, then HTTP_PROXY; for an
// https:// one https_proxy, then HTTPS_PROXY, then the http one. An empty value is none. NO_PROXY is
// undici's to apply: a failure is said to be the proxy's only when it happened at the proxy.
import { shownUrl } from '../model/index.js';

/** The variables naming a proxy, the lower-case spelling first (as undici reads them). */
const PROXY_VARIABLES = {
  'http:': ['http_proxy', 'HTTP_PROXY'],
  'https:': ['https_proxy', 'HTTPS_PROXY'],
} as const;

export interface EnvProxy {
  /** The variable that named it, e.g. HTTPS_PROXY. */
  variable: string;
  /** Its value, as given (credentials included: show it with `shownUrl`). */
  value: string;
}

/** The proxy for a service reached with `protocol` (`http:` or `https:`), or none. */
export function proxyFromEnv(env: NodeJS.ProcessEnv, protocol: string): EnvProxy | undefined {
  const own = protocol === 'https:' ? named(env, PROXY_VARIABLES['https:']) : undefined;
  return own ?? named(env, PROXY_VARIABLES['http:']);
}

function named(env: NodeJS.ProcessEnv, variables: readonly string[]): EnvProxy | undefined {
  const variable = variables.find((name) => env[name] !== undefined);
  const value = variable === undefined ? undefined : env[variable];
  return variable !== undefined && value ? { variable, value } : undefined;
}

/**
 * " through the proxy … from HTTPS_PROXY" when `cause`, a request's failure to get an answer from
 * `service`, happened at `proxy`: the proxy's own refusal (undici's proxy errors: their codes, or a
 * message that starts by naming the proxy, as "Proxy response (407)"; never a mere mention, which a
 * service named stats-proxy.example.com makes too), or a connection that failed at the proxy's port (at
 * its host, or at a port the service's is not), or a proxy's name that did not resolve. Empty
 * otherwise: a service that NO_PROXY sends around the proxy fails as itself.
 */
export function throughProxy(cause: unknown, proxy: EnvProxy | undefined, service: URL): string {
  const at = proxy === undefined ? undefined : URL.parse(proxy.value);
  if (!proxy || !at) return '';
  const ends = { host: unbracketed(at.hostname), port: portOf(at), service };
  return failedAt(ends, cause, 0) ? ` through the proxy ${shownUrl(proxy.value)} from ${proxy.variable}` : '';
}

interface Ends {
  /** The proxy's host, as written in its URL, and its port. */
  host: string;
  port: number;
  service: URL;
}

/**
 * Whether `error`, or what caused it, failed at the proxy. A name with several addresses (IPv4 and
 * IPv6: a proxy at localhost, or a dual-stack one) fails as an AggregateError without a message, address
 * or port of its own, holding one error for each address.
 */
function failedAt(ends: Ends, error: unknown, depth: number): boolean {
  if (!(error instanceof Error) || depth >= 5) return false;
  if (isProxyError(error) || atProxyAddress(ends, error)) return true;
  const each: unknown[] = error instanceof AggregateError ? error.errors : [];
  return each.some((one) => failedAt(ends, one, depth + 1)) || failedAt(ends, error.cause, depth + 1);
}

/** undici's errors of a proxy (an http:// or https:// one, or SOCKS5), by their code or their message's start. */
function isProxyError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^(?:UND_ERR_PRX_|UND_ERR_SOCKS5|SOCKS5_)/.test(code)) return true;
  return /^(?:Proxy|SOCKS5) /.test(error.message);
}

/** Whether `error` is a connection that failed at the proxy's address, or a lookup of its name. */
function atProxyAddress(ends: Ends, error: Error): boolean {
  const failed = error as Error & { hostname?: unknown; address?: unknown; port?: unknown };
  const attempted = /attempted address: (.+):(\d+),/.exec(error.message);
  const host = failed.address ?? failed.hostname ?? (attempted ? unbracketed(attempted[1] ?? '') : undefined);
  const port = failed.port ?? (attempted ? Number(attempted[2]) : undefined);
  if (port === undefined) return host === ends.host && host !== unbracketed(ends.service.hostname);
  return port === ends.port && (host === ends.host || ends.port !== portOf(ends.service));
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol.startsWith('socks') ? 1080 : 80;
}

function unbracketed(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}
