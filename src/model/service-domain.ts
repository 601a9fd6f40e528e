// How the service itself treats a domain, from its public code: what it stores for what a client
// sends, and which names its validation accepts. The client predicts the stored form with these, and
// the simulator answers with them, so the two cannot drift apart.

import { Buffer } from 'node:buffer';

/**
 * The domain the service stores for `raw` (after its middleware trimmed it), exactly as its form request
 * computes it: `mb_strtolower`, then `str_replace(['https://', 'http://'], '', …)` (every `https://`
 * removed in one left-to-right pass, then every `http://` in the result), then, only if that starts
 * with `www.`, `str_replace('www.', '', …)` (`www.shop.www.example.net` → `shop.example.net`).
 *
 * Not idempotent: `www.wwww.ww.x-example.com` is stored as `www.x-example.com`, which sent again would
 * be stored as `x-example.com`. A client therefore sends the name it predicted from, never the
 * prediction (see `canonicalDomain`).
 */
export function serviceStoredDomain(raw: string): string {
  const domain = serviceSchemesRemoved(raw);
  return domain.startsWith('www.') ? domain.replaceAll('www.', '') : domain;
}

/** The first two steps of the service's rule: lower-cased, `https://` then `http://` removed. */
export function serviceSchemesRemoved(raw: string): string {
  return raw.toLowerCase().replaceAll('https://', '').replaceAll('http://', '');
}

const IPV4_PATTERN = /^((25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)(\.|$)){4}$/;

/**
 * The service's domain rule, `/^(?!:\/\/)(?=.{1,255}$)((.{1,63}\.){1,127}(?![0-9]*$)[a-z0-9-]+\.?)$/i`
 * or an IPv4 address, as PHP's PCRE runs it: without the `u` flag, so `.` is any byte but a line feed
 * and the lengths count UTF-8 bytes (a carriage return, a space, `/`, `?` or a non-ASCII label all
 * pass; only the last label is restricted). Evaluated without the regex: `(.{1,63}\.){1,127}`
 * backtracks exponentially in JavaScript on dotted input that fails late (PHP merely hits its
 * backtrack limit and rejects).
 */
export function serviceAcceptsDomain(value: string): boolean {
  if (IPV4_PATTERN.test(value)) return true;
  const bytes = Buffer.from(value, 'utf8').toString('latin1');
  if (bytes.length < 1 || bytes.length > 255 || bytes.includes('\n') || bytes.startsWith('://')) {
    return false;
  }
  const body = bytes.endsWith('.') ? bytes.slice(0, -1) : bytes;
  const lastDot = body.lastIndexOf('.');
  if (lastDot < 0) return false;
  const tld = body.slice(lastDot + 1);
  if (!/^[a-z0-9-]+$/i.test(tld)) return false;
  if (body === bytes && /^[0-9]+$/.test(tld)) return false;
  return fitsLabelGroups(body.slice(0, lastDot + 1));
}

/** Whether `prefix` (ending with a dot) splits into 1..127 groups of 1..63 characters plus a dot. */
function fitsLabelGroups(prefix: string): boolean {
  // fewest[i]: fewest groups covering prefix[0, i), or undefined when no split reaches i.
  const fewest: Array<number | undefined> = [0];
  for (let end = 0; end < prefix.length; end++) {
    if (prefix[end] !== '.') continue;
    let best: number | undefined;
    for (let start = Math.max(0, end - 63); start < end; start++) {
      const before = fewest[start];
      if (before !== undefined && (best === undefined || before + 1 < best)) best = before + 1;
    }
    fewest[end + 1] = best;
  }
  const groups = fewest[prefix.length];
  return groups !== undefined && groups <= 127;
}
