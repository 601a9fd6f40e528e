// `ignore` protects websites, so a pattern must mean the domains the operator wrote, read the way a
// listed domain is (`nameOf`) and compared with the names every record goes by (`websiteKey`,
// `storedKey`): a pattern written as a record's stored name protects that record, whatever it holds.
import { domainToUnicode } from 'node:url';
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

/** What makes a label a glob rather than a name (picomatch's syntax). */
const GLOB = /[*?[\]{}()!+@|]/;

/**
 * A name in its Unicode spelling: every punycode label (`xn--…`) decoded, the others as they are. A
 * pattern converted to punycode with a wildcard inside a label (`bücher-*` → `xn--bcher-*-n2a`) decodes
 * back to what was written, so this is also the Unicode spelling of a canonical pattern.
 */
function unicodeSpelling(name: string): string {
  if (!name.includes('xn--')) return name;
  return name
    .split('.')
    .map((label) => (label.startsWith('xn--') ? domainToUnicode(label) || label : label))
    .join('.');
}

/**
 * Why a pattern can match no name whatever the account holds, from its spelling alone, or undefined.
 * A wildcard among the letters of a punycode label (`xn--bcher-*-n2a`): those letters encode the whole
 * label, so the glob stands for no text of it; the label written in Unicode matches either spelling.
 */
export function patternSpellingError(pattern: string): string | undefined {
  const labels = serviceSchemesRemoved(pattern.trim()).split('.');
  const encoded = labels.find((label) => label.startsWith('xn--') && GLOB.test(label));
  if (encoded !== undefined) {
    const decoded = domainToUnicode(encoded);
    const instead = decoded !== '' && decoded !== encoded ? ` (${JSON.stringify(decoded)})` : '';
    return `${JSON.stringify(pattern)} has a wildcard inside the punycode label ${JSON.stringify(encoded)}, whose letters encode the whole label, so it matches no name; write that label in Unicode${instead}: a pattern matches a name in its Unicode and its punycode spelling alike`;
  }
  if (canonicalPattern(pattern) === '')
    return `${JSON.stringify(pattern)} has no host name, so it matches no name`;
  return undefined;
}

/**
 * The forms a pattern matches in: its canonical spelling (unless a wildcard fell inside a label
 * converted to punycode, which no name spells), its Unicode spelling, and, when a glob stands in what
 * a domain would lose (a path: `example.com/*`), the text as written too, lower-cased and without its
 * scheme, so the glob is not cut off with the path. A name any form matches is protected.
 */
function patternForms(pattern: string): string[] {
  const canonical = canonicalPattern(pattern);
  const unicode = unicodeSpelling(canonical);
  const scrambled = canonical.split('.').some((label) => label.startsWith('xn--') && GLOB.test(label));
  const forms = new Set(scrambled ? [unicode] : [canonical, unicode]);
  const whole = serviceSchemesRemoved(pattern.trim());
  const path = whole.search(/[/?#]/);
  if (path !== -1 && /[*?[{]/.test(whole.slice(path + 1))) forms.add(whole);
  return [...forms];
}

/** Every spelling of a record's name a pattern is matched against: its key and stored name, in punycode and in Unicode. */
function nameSpellings(domain: string): string[] {
  const key = websiteKey(domain);
  const stored = storedKey(domain);
  const names = new Set([key, stored, unicodeSpelling(key), unicodeSpelling(stored)]);
  return [...names].map(flat);
}

export function compileIgnore(patterns: readonly string[]): IgnoreRules {
  const tests = patterns.map((pattern) => {
    const forms = patternForms(pattern).map((form) =>
      picomatch(flat(form), { flags: 'is', dot: true, windows: false }),
    );
    return (name: string) => forms.some((test) => test(name));
  });
  return {
    match(domain) {
      if (tests.length === 0) return -1;
      const candidates = nameSpellings(domain);
      return tests.findIndex((test) => candidates.some((name) => test(name)));
    },
    matchAll(domain) {
      const candidates = nameSpellings(domain);
      return tests.flatMap((test, index) => (candidates.some((name) => test(name)) ? [index] : []));
    },
  };
}
