// `ignore` protects websites, so a pattern must mean the domains the operator wrote, spelled the way
// every other domain is compared: the same canonical form as listed domains and records.
import picomatch from 'picomatch';
import { toAscii } from './domain.js';
import { storedKey, websiteKey } from './identity.js';
import { serviceSchemesRemoved, serviceStoredDomain } from './service-domain.js';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;

/**
 * A pattern in the canonical spelling of domains: lower-case, no scheme, port or trailing dot, labels
 * in punycode, and the service's `www.` rule. Glob characters (`*`, `?`, `[…]`, `{…}`) are kept.
 */
export function canonicalPattern(pattern: string): string {
  // Like extractHost, but `?` is a glob character here, not the start of a query.
  let host = serviceSchemesRemoved(pattern.trim()).replace(SCHEME, '');
  const slash = host.indexOf('/');
  if (slash !== -1) host = host.slice(0, slash);
  host = host.replace(/:\d*$/, '').replace(/\.$/, '');
  const labels = host
    .split('.')
    .map((label) => (/^\p{ASCII}*$/u.test(label) ? label : toAscii(label) || label));
  return serviceStoredDomain(labels.join('.'));
}

export interface IgnoreRules {
  /** The index of the first pattern that matches the domain (as stored or as the service would store it), or -1. */
  match(domain: string): number;
  /** Every pattern index that matches the domain. */
  matchAll(domain: string): number[];
}

export function compileIgnore(patterns: readonly string[]): IgnoreRules {
  const tests = patterns.map((pattern) => picomatch(canonicalPattern(pattern), { nocase: true, dot: true }));
  const names = (domain: string): string[] => {
    const key = websiteKey(domain);
    const stored = storedKey(domain);
    return stored === key ? [key] : [key, stored];
  };
  return {
    match(domain) {
      if (tests.length === 0) return -1;
      const candidates = names(domain);
      return tests.findIndex((test) => candidates.some((name) => test(name)));
    },
    matchAll(domain) {
      const candidates = names(domain);
      return tests.flatMap((test, index) => (candidates.some((name) => test(name)) ? [index] : []));
    },
  };
}
