// The domain is the identity that matches a listed website to the service's record, so it must be
// spelled exactly as the service stores it. The service lower-cases and strips `http(s)://` and `www.`;
// we also strip what a browser address bar adds (path, query, port, trailing dot) and convert IDNs.
import { domainToASCII } from 'node:url';

export type CanonicalDomainResult = { domain: string; warnings: string[] } | { error: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const MAX_DOMAIN_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

/** Removes everything around the host name a user may paste from a browser: scheme, path, port. */
function extractHost(input: string): string {
  let host = input.trim().replace(SCHEME, '');
  const end = host.search(/[/?#]/);
  if (end !== -1) host = host.slice(0, end);
  host = host.replace(/:\d*$/, '');
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function validateHost(domain: string, input: string): string | undefined {
  const shown = JSON.stringify(input.trim());
  if (domain === '') return `got ${shown}, which has no host name`;
  if (domain.length > MAX_DOMAIN_LENGTH) {
    return `${shown} is ${domain.length} characters long; at most ${MAX_DOMAIN_LENGTH} are allowed`;
  }
  const labels = domain.split('.');
  if (labels.length < 2) return `${shown} has no dot`;
  for (const label of labels) {
    if (label.length > MAX_LABEL_LENGTH) {
      return `${shown} has a label of ${label.length} characters; at most ${MAX_LABEL_LENGTH} are allowed`;
    }
    if (!LABEL.test(label)) {
      return `${shown} has an invalid label ${JSON.stringify(label)} (labels are letters, digits and inner hyphens)`;
    }
  }
  return undefined;
}

/**
 * Whether a name is already in canonical form: lower-case ASCII labels (letters, digits, inner
 * hyphens, at most 63 characters), at least two, no leading `www.`. Such a name is its own canonical
 * form: the general path below would return it unchanged and without warnings. Checked character by
 * character because this runs for every website of the manifest and of the account.
 */
function isCanonical(name: string): boolean {
  if (name.length > MAX_DOMAIN_LENGTH || name.startsWith('www.')) return false;
  let labelStart = 0;
  let dots = 0;
  for (let i = 0; i <= name.length; i++) {
    const c = i === name.length ? 46 : name.charCodeAt(i);
    if (c === 46) {
      const length = i - labelStart;
      if (length === 0 || length > MAX_LABEL_LENGTH) return false;
      if (name.charCodeAt(labelStart) === 45 || name.charCodeAt(i - 1) === 45) return false;
      labelStart = i + 1;
      dots++;
    } else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45)) {
      return false;
    }
  }
  return dots >= 2;
}

export function canonicalDomain(input: string): CanonicalDomainResult {
  if (isCanonical(input)) return { domain: input, warnings: [] };
  const host = extractHost(input).toLowerCase();
  // domainToASCII returns '' for names that cannot be converted (bad punycode, forbidden characters).
  const ascii = /^\p{ASCII}*$/u.test(host) ? host : domainToASCII(host);
  if (ascii === '' && host !== '') {
    return { error: `${JSON.stringify(input.trim())} is not a valid internationalised domain name` };
  }
  const warnings: string[] = [];
  let domain = ascii;
  // `www.com` is a domain in its own right; only strip `www.` when a registrable name remains.
  if (domain.startsWith('www.') && domain.slice(4).includes('.')) {
    domain = domain.slice(4);
    warnings.push(
      `"www." removed: the service stores this website as ${domain}; write "${domain}" to silence this warning`,
    );
  }
  const error = validateHost(domain, input);
  return error === undefined ? { domain, warnings } : { error };
}
