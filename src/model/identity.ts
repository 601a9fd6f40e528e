import { canonicalDomain } from './domain.js';

/**
 * Which website a record is: its canonical domain, the same function the manifest uses, so a record the
 * web UI stored in another form (upper case, Unicode) still matches its manifest entry.
 */
export function websiteKey(domain: string): string {
  const canonical = canonicalDomain(domain);
  return 'domain' in canonical ? canonical.domain : domain.trim().toLowerCase();
}
