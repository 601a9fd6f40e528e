// A URL may carry credentials (`https://user:password@host`), and what a person types is not always
// what a regular expression expects: `http:\\user:pass@host` is the same URL to the WHATWG parser (and
// so to the request) as `http://user:pass@host`. Every URL the tool prints goes through shownUrl.

/**
 * `text` as it may be printed: parsed as a WHATWG URL and printed without its user and password. What
 * still holds an `@` (it does not parse, or its scheme has no user and password, as in `user:pw@host`)
 * has everything between its scheme and its last `@` masked: that may be a password.
 */
export function shownUrl(text: string): string {
  const shown = withoutCredentials(text) ?? text;
  const at = shown.lastIndexOf('@');
  if (at === -1) return shown;
  const scheme = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?[/\\]*/.exec(shown)?.[0] ?? '';
  return `${scheme}***${shown.slice(at)}`;
}

function withoutCredentials(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  url.username = '';
  url.password = '';
  // As typed: `https://host`, not the parser's `https://host/`.
  const bare = url.pathname === '/' && !url.search && !url.hash && !/[/\\]$/.test(text.trim());
  return bare ? url.href.slice(0, -1) : url.href;
}
