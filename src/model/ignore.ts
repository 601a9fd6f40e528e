// `ignore` protects websites, so a pattern must mean the domains the operator wrote, read the way a
// listed domain is (`nameOf`) and compared with the names every record goes by (`websiteKey`,
// `storedKey`): a pattern written as a record's stored name protects that record, whatever it holds.
import picomatch from 'picomatch';
import { domainKey, nameOf, storedKeyOf, toAscii } from './domain.js';
import { storedKey, websiteKey } from './identity.js';
import { serviceSchemesRemoved } from './service-domain.js';

/**
 * A pattern in the canonical spelling of domains, exactly as a listed domain of the same text is
 * canonicalised (`nameOf`, then the service's `www.` rule); glob characters (`*`, `?`, `[…]`, `{…}`)
 * are kept. Where a listed domain would be an error (`*`, `bücher.[a-z]*`), the pattern keeps its host
 * name, non-ASCII labels in punycode one by one.
 */
export function canonicalPattern(pattern: string): string {
  const { written, host } = nameOf(pattern, true);
  const name =
    written !== '' || host === ''
      ? written
      : host
          .split('.')
          .map((label) => toAscii(label) || label.toLowerCase())
          .join('.');
  return storedKeyOf(domainKey(name));
}

/**
 * A stored name may hold `/` (`example.com/index.html`, `ftp://files.example.com`), which picomatch
 * treats as a path separator that no wildcard crosses. Names are matched with every `/` (in the
 * pattern and in the name alike) in place of a line feed, which no name the service accepts holds, and
 * `.` of the compiled expression matches a line feed (flag `s`): so `*`, `**` and `?` match any
 * character, `/` included, and `*` and `**` mean the same. Case is ignored (flag `i`).
 */
const SLASH = /\//g;
const flat = (text: string): string => text.replace(SLASH, '\n');

export interface IgnoreRules {
  /** The index of the first pattern that matches the domain (as stored or as the service would store it), or -1. */
  match(domain: string): number;
  /** Every pattern index that matches the domain. */
  matchAll(domain: string): number[];
}

/**
 * The forms a pattern matches in: its canonical spelling, and, when a glob stands in what a domain
 * would lose (a path: `example.com/*`), the text as written too, lower-cased and without its scheme,
 * so the glob is not cut off with the path. A name either form matches is protected.
 */
function patternForms(pattern: string): string[] {
  const canonical = canonicalPattern(pattern);
  const whole = serviceSchemesRemoved(pattern.trim());
  const path = whole.search(/[/?#]/);
  const keepsPath = path !== -1 && /[*?[{]/.test(whole.slice(path + 1));
  return keepsPath && whole !== canonical ? [canonical, whole] : [canonical];
}

export function compileIgnore(patterns: readonly string[]): IgnoreRules {
  const tests = patterns.map((pattern) => {
    const forms = patternForms(pattern).map((form) =>
      picomatch(flat(form), { flags: 'is', dot: true, windows: false }),
    );
    return (name: string) => forms.some((test) => test(name));
  });
  const names = (domain: string): string[] => {
    const key = flat(websiteKey(domain));
    const stored = flat(storedKey(domain));
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
