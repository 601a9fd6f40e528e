// What a command that talks to the service needs: its base URL and the API key, checked.
import { isLoopbackHost, shownUrl } from '../model/index.js';
import { apiKeyProblem, proxyFromEnv, readApiKeyFile } from '../service/index.js';
import type { Config } from './args.js';
import { UsageError } from './errors.js';

/**
 * The key file's one line; anything else would travel as a broken header and fail obscurely. `source`:
 * `--api-key-file` or WEBSITES_SYNC_API_KEY_FILE, whichever named the file; `variable`, the one that takes
 * the key itself.
 */
function readKeyFile(file: string, source: string, variable: string): string {
  const read = readApiKeyFile(file, source, variable);
  if ('problem' in read) throw new UsageError(read.problem);
  return read.key;
}

/** The key for a command that talks to the service: the key file wins over WEBSITES_SYNC_API_KEY. */
function apiKeyOf(config: Config): { apiKey: string | undefined; notice?: string } {
  if (config.apiKeyFile) {
    const apiKey = readKeyFile(config.apiKeyFile, config.sources['api-key-file'], 'WEBSITES_SYNC_API_KEY');
    if (!config.apiKey) return { apiKey };
    return {
      apiKey,
      notice: `both WEBSITES_SYNC_API_KEY and the key file ${config.apiKeyFile} are set; the key file wins`,
    };
  }
  const problem = config.apiKey ? apiKeyProblem(config.apiKey, 'WEBSITES_SYNC_API_KEY') : undefined;
  if (problem) throw new UsageError(problem);
  return { apiKey: config.apiKey };
}

/**
 * The key used before a rotation, when given (`--previous-api-key-file` wins over
 * WEBSITES_SYNC_PREVIOUS_API_KEY): checked like the key, and used only to recognise fingerprints.
 */
export function previousApiKeyOf(config: Config): { previousApiKey?: string; notice?: string } {
  const fromEnv = config.previousApiKey;
  if (config.previousApiKeyFile) {
    const file = config.previousApiKeyFile;
    const previousApiKey = readKeyFile(
      file,
      config.sources['previous-api-key-file'],
      'WEBSITES_SYNC_PREVIOUS_API_KEY',
    );
    if (!fromEnv) return { previousApiKey };
    const notice = `both WEBSITES_SYNC_PREVIOUS_API_KEY and the key file ${file} are set; the key file wins`;
    return { previousApiKey, notice };
  }
  if (!fromEnv) return {};
  const problem = apiKeyProblem(fromEnv, 'WEBSITES_SYNC_PREVIOUS_API_KEY');
  if (problem) throw new UsageError(problem);
  return { previousApiKey: fromEnv };
}

/** The base URL and key a command that talks to the service needs, checked. */
export function requireService(config: Config): { baseUrl: string; apiKey: string; notice?: string } {
  if (!config.baseUrl) {
    throw new UsageError(
      '--base-url is required (or WEBSITES_SYNC_BASE_URL), e.g. https://stats.example.com',
    );
  }
  // Errors name where the URL came from: --base-url, or WEBSITES_SYNC_BASE_URL.
  const source = config.sources['base-url'];
  // Credentials in the URL would travel into logs, state, saved plans and exports: never accepted,
  // and never shown back (not even in this message).
  const shown = shownUrl(config.baseUrl);
  let url: URL;
  try {
    url = new URL(config.baseUrl);
  } catch {
    throw new UsageError(`${source}: "${shown}" is not a URL; use e.g. https://stats.example.com`);
  }
  if (url.username || url.password) {
    throw new UsageError(
      `${source}: "${shown}" carries credentials (user:password@); remove them: the service takes only the API key (WEBSITES_SYNC_API_KEY or --api-key-file)`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${source}: "${shown}" must start with https://`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !config.allowInsecureHttp) {
    throw new UsageError(
      `${source}: plain http:// to ${url.hostname} would send the API key unencrypted; use https://, or --allow-insecure-http if you must`,
    );
  }
  if (/\/api\/v1\/?$/.test(url.pathname)) {
    const root = shownUrl(config.baseUrl.replace(/\/api\/v1\/?$/, ''));
    throw new UsageError(
      `${source}: "${shown}" ends in /api/v1, which websites-sync adds itself (it asks {URL}/api/v1/websites); use ${root}`,
    );
  }
  const { apiKey, notice } = apiKeyOf(config);
  if (!apiKey) {
    throw new UsageError(
      'no API key: set WEBSITES_SYNC_API_KEY, or use --api-key-file PATH (WEBSITES_SYNC_API_KEY_FILE)',
    );
  }
  const baseUrl = url.href.replace(/\/+$/, '');
  return notice === undefined ? { baseUrl, apiKey } : { baseUrl, apiKey, notice };
}

/**
 * The proxies the transport may take from the environment (src/service/proxy.ts: as undici reads them),
 * checked like the base URL: a broken one is an error naming its variable, and the URL is shown without
 * its credentials.
 */
export function checkProxyEnv(env: NodeJS.ProcessEnv, baseUrl: string): void {
  if (isLoopbackHost(new URL(baseUrl).hostname)) return;
  for (const protocol of ['http:', 'https:']) {
    const proxy = proxyFromEnv(env, protocol);
    if (proxy === undefined) continue;
    const { variable, value } = proxy;
    let protocolOfProxy: string;
    try {
      protocolOfProxy = new URL(value).protocol;
    } catch {
      throw new UsageError(
        `${variable}: "${shownUrl(value)}" is not a URL; use e.g. http://proxy.example.com:3128`,
      );
    }
    if (!PROXY_PROTOCOLS.includes(protocolOfProxy)) {
      throw new UsageError(
        `${variable}: "${shownUrl(value)}" must start with http://, https:// or socks5://`,
      );
    }
  }
}

const PROXY_PROTOCOLS = ['http:', 'https:', 'socks:', 'socks5:'];

/** Whether a run's connections use TLS: to an https:// service, or to an https:// proxy for http://. */
export function usesTls(baseUrl: string | undefined, env: Record<string, string | undefined>): boolean {
  const url = URL.parse(baseUrl ?? '');
  if (url === null) return false;
  if (url.protocol === 'https:') return true;
  // A service on this machine is never reached through a proxy (src/service/http.ts).
  if (isLoopbackHost(url.hostname)) return false;
  const proxy = proxyFromEnv(env, url.protocol);
  return proxy !== undefined && URL.parse(proxy.value)?.protocol === 'https:';
}
