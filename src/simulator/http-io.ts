// Reading requests and writing responses the way the service's stack (PHP, Laravel, nginx) does.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** PHP keeps the last of repeated keys; so do we. */
export function searchParamsToRecord(params: URLSearchParams): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of params) record[key] = value;
  return record;
}

/** Form bodies as PHP parses them; JSON bodies as Laravel merges them into the input. */
export function parseBody(raw: string, contentType: string | undefined): Record<string, string> | undefined {
  if (raw === '') return undefined;
  if (contentType?.toLowerCase().includes('json')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
      const record: Record<string, string> = {};
      for (const [key, value] of Object.entries(parsed)) {
        if (value === null) record[key] = '';
        else if (typeof value === 'boolean') record[key] = value ? '1' : '0';
        else record[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
      }
      return record;
    } catch {
      return {};
    }
  }
  return searchParamsToRecord(new URLSearchParams(raw));
}

export function headersToRecord(headers: IncomingHttpHeaders): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) record[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

/** Laravel's `expectsJson()`: an XHR, or a most-preferred `Accept` type that is JSON. */
export function expectsJson(headers: IncomingHttpHeaders): boolean {
  if (headers['x-requested-with'] === 'XMLHttpRequest') return true;
  const ranked = (headers.accept ?? '')
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { type: type.toLowerCase(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((entry) => entry.type !== '')
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const first = ranked[0]?.type ?? '';
  return first.includes('/json') || first.includes('+json');
}

/** PHP's `json_encode` defaults: slashes and non-ASCII characters escaped. */
export function encodeJsonLikePhp(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('/', '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  const text = encodeJsonLikePhp(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function writeHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string>,
): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/html; charset=UTF-8',
    'Content-Length': Buffer.byteLength(html),
  });
  res.end(html);
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** Symfony's RedirectResponse body. */
export function redirectHtml(location: string): string {
  const url = escapeHtml(location);
  return `<!DOCTYPE html>
<html>
    <head>
        <meta charset="UTF-8" />
        <meta http-equiv="refresh" content="0;url='${url}'" />

        <title>Redirecting to ${url}</title>
    </head>
    <body>
        Redirecting to <a href="${url}">${url}</a>.
    </body>
</html>`;
}

export function loginPageHtml(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Login - Website Analytics</title></head>
<body>
<form method="POST" action="/login"><input type="email" name="email"><input type="password" name="password">
<button type="submit">Login</button></form>
</body>
</html>`;
}

/** An error page as nginx (502/503 from the proxy) or Laravel (anything else) renders it. */
export function errorPageHtml(status: number, title: string): string {
  if (status === 502 || status === 503 || status === 504) {
    return `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
  }
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body><div class="flex-center"><div class="code">${status}</div><div class="message">${title}</div></div></body>
</html>`;
}

export const STATUS_TITLES: Record<number, string> = {
  404: 'Not Found',
  405: 'Method Not Allowed',
  419: 'Page Expired',
  429: 'Too Many Requests',
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusTitle(status: number): string {
  return STATUS_TITLES[status] ?? 'Error';
}

/** The request's URL, with the Host header's origin (or the socket's) as its base. */
export function requestUrl(req: IncomingMessage): URL {
  const host = req.headers.host ?? `${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? 80}`;
  try {
    return new URL(req.url ?? '/', `http://${host}`);
  } catch {
    return new URL(req.url ?? '/', 'http://localhost');
  }
}

/** A debug error page that prints the request's headers (Authorization included) and its form body. */
export function echoPageHtml(
  headers: Record<string, string>,
  body: Record<string, string> | undefined,
): string {
  const shown = Object.entries(headers).map(([name, value]) => `<tr><td>${name}</td><td>${value}</td></tr>`);
  return `<html><title>Server Error</title><body><h1>Whoops</h1><table>${shown.join('')}</table><pre>${new URLSearchParams(body ?? {})}</pre></body></html>`;
}
