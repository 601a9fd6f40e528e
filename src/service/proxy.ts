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
 * `service`, happened at `proxy`: the proxy's own refusal (undici's and its SOCKS client's errors say
 * "proxy" or "SOCKS"), or a connection that failed at the proxy's port (at its host, or at a port the
 * service's is not), or a proxy's name that did not resolve. Empty otherwise: a service that NO_PROXY
 * sends around the proxy fails as itself.
 */
export function throughProxy(cause: unknown, proxy: EnvProxy | undefined, service: URL): string {
  const at = proxy === undefined ? undefined : URL.parse(proxy.value);
  if (!proxy || !at) return '';
  const proxyHost = unbracketed(at.hostname);
  const proxyPort = portOf(at);
  for (let error = cause, depth = 0; error instanceof Error && depth < 5; depth++) {
    const failed = error as Error & { hostname?: unknown; address?: unknown; port?: unknown };
    const attempted = /attempted address: (.+):(\d+),/.exec(error.message);
    const host = failed.address ?? failed.hostname ?? attempted?.[1];
    const port = failed.port ?? (attempted ? Number(attempted[2]) : undefined);
    const atProxy =
      port === undefined
        ? host === proxyHost && host !== unbracketed(service.hostname)
        : port === proxyPort && (host === proxyHost || proxyPort !== portOf(service));
    if (atProxy || /\bproxy\b|\bsocks/i.test(error.message)) {
      return ` through the proxy ${shownUrl(proxy.value)} from ${proxy.variable}`;
    }
    error = error.cause;
  }
  return '';
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol.startsWith('socks') ? 1080 : 80;
}

function unbracketed(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}
