// The domain is the identity that matches a listed website to the service's record, so a manifest
// entry is spelled exactly as the service will store it (service-domain.ts: lower-case, every
// `http(s)://` removed, and every `www.` removed when the name starts with `www.`). A name the service
// accepts as it is (a path or a query included: `example.com/index.html`) is that website, so that
// every name the service can hold means itself again; only a name the service would refuse loses what
// a browser address bar adds (another scheme, path, port). A trailing dot goes and IDNs become
// punycode either way: the identity (`domainKey`) does not tell those spellings apart.
import { domainToASCII } from 'node:url';
import { serviceAcceptsDomain, serviceSchemesRemoved, serviceStoredDomain } from './service-domain.js';

export type CanonicalDomainResult =
  | {
      domain: string;
      warnings: string[];
      /** The name as written (canonical but for the `www.` rule), when the service stores another. */
      written?: string;
    }
  | { error: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const USUAL_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const MAX_LABEL_LENGTH = 63;
const MAX_CANONICAL_LENGTH = 253;

/**
 * Removes everything around the host name a user may paste from a browser: scheme, path, port. In a
 * glob (`glob`), `?` is a wildcard, not the start of a query.
 */
function extractHost(input: string, glob: boolean): string {
  let host = input.trim().replace(SCHEME, '');
  const end = host.search(glob ? /[/#]/ : /[/?#]/);
  if (end !== -1) host = host.slice(0, end);
  return host.replace(/:\d*$/, '');
}

const IDEOGRAPHIC_STOPS = /[\u3002\uff0e\uff61]/g;

/**
 * Which website a name is, in one spelling: trimmed, trailing dots removed, lower-case, punycode when
 * the name converts (else the lower-cased name as it is, a path or a query included). Idempotent: a
 * name and its key are the same website (`x..` is `x`, as `x.` is).
 */
export function domainKey(domain: string): string {
  // The full stops IDNA reads as dots (。．｡) are dots here too, before trailing ones are removed:
  // otherwise `x.com。` would key as `x.com.` and that, keyed again, as `x.com`.
  const trimmed = domain.trim().replace(IDEOGRAPHIC_STOPS, '.');
  const bare = trimmed.endsWith('.') ? trimmed.replace(/\.+$/, '') : trimmed;
  // One dot of `x.1.` stays: the service accepts that name and would refuse `x.1`.
  const name =
    bare !== trimmed && !serviceAcceptsDomain(bare) && serviceAcceptsDomain(`${bare}.`) ? `${bare}.` : bare;
  const ascii = toAscii(name);
  return ascii === '' ? name.toLowerCase() : ascii;
}

/**
 * The key of the record the service stores for a name it is sent (`key`, itself a key): its rule, then
 * `domainKey` (the rule can expose a space, `https:// x.com` → ` x.com`, or a trailing dot).
 */
export function storedKeyOf(key: string): string {
  const stored = serviceStoredDomain(key);
  return stored === key ? key : domainKey(stored);
}

/** Where a URL parser ends a host name: a non-ASCII name holding one is not converted, never cut. */
const HOST_END = /[/?#\\@:]/;

/**
 * Lower-case ASCII: non-ASCII names in punycode, or '' when they cannot be converted (a name with a
 * path or a query is not a host name: `domainToASCII` would silently keep only the part before it).
 */
export function toAscii(host: string): string {
  const lower = host.toLowerCase();
  if (/^\p{ASCII}*$/u.test(lower)) return lower;
  return HOST_END.test(lower) ? '' : domainToASCII(lower);
}

/**
 * Whether a name is already in canonical form: lower-case ASCII labels (letters, digits, inner
 * hyphens, at most 63 characters), at least two, no leading `www.`, a last label not all digits. Such a
 * name is its own canonical form: the general path below would return it unchanged and without
 * warnings. Checked character by character because this runs for every website of the manifest.
 */
function isCanonical(name: string): boolean {
  if (name.length > MAX_CANONICAL_LENGTH || name.startsWith('www.')) return false;
  let labelStart = 0;
  let labels = 0;
  let digitsOnly = true;
  for (let i = 0; i <= name.length; i++) {
    const c = i === name.length ? 46 : name.charCodeAt(i);
    if (c === 46) {
      const length = i - labelStart;
      if (length === 0 || length > MAX_LABEL_LENGTH) return false;
      if (name.charCodeAt(labelStart) === 45 || name.charCodeAt(i - 1) === 45) return false;
      if (i < name.length) digitsOnly = true;
      labelStart = i + 1;
      labels++;
    } else if (c >= 48 && c <= 57) {
      // a digit: the label may still be all digits
    } else if ((c >= 97 && c <= 122) || c === 45) {
      digitsOnly = false;
    } else {
      return false;
    }
  }
  return labels >= 2 && !digitsOnly;
}

/** Why the service would refuse `domain` (its stored form), or undefined when it accepts it. */
function refusal(domain: string, input: string): string | undefined {
  const shown = JSON.stringify(input.trim());
  const stored = domain === input.trim() ? '' : ` (stored as ${JSON.stringify(domain)})`;
  if (domain === '') return `got ${shown}, which has no host name`;
  if (serviceAcceptsDomain(domain)) return undefined;
  if (domain.length > 255) return `${shown} is ${domain.length} characters long; at most 255 are allowed`;
  if (!domain.includes('.')) return `${shown}${stored} has no dot`;
  const long = domain.split('.').find((label) => label.length > MAX_LABEL_LENGTH);
  if (long)
    return `${shown} has a label of ${long.length} characters; at most ${MAX_LABEL_LENGTH} are allowed`;
  return `${shown}${stored} is not a domain the service accepts: labels of 1 to 63 characters separated by dots, the last of letters, digits and hyphens and not all digits`;
}

function wwwWarnings(written: string, domain: string): string[] {
  if (written === domain) return [];
  if (domain === written.slice('www.'.length)) {
    return [
      `"www." removed: the service stores this website as ${domain}; write "${domain}" to silence this warning`,
    ];
  }
  return [
    `the service stores ${written} as ${domain}: a name that starts with "www." loses every "www." in it; write "${domain}" if that is the website you mean`,
  ];
}

function unusualWarnings(domain: string): string[] {
  const unusual = domain.split('.').find((label) => !USUAL_LABEL.test(label));
  if (unusual === undefined || serviceAcceptsIpv4(domain)) return [];
  return [
    `${domain} has the unusual label ${JSON.stringify(unusual)} (host names use letters, digits and inner hyphens); the service accepts it`,
  ];
}

function serviceAcceptsIpv4(domain: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(domain);
}

/** What `nameOf` makes of an input, before the service's `www.` rule. */
export interface WrittenName {
  /** The name a create sends ('' when a non-ASCII host cannot be converted). */
  written: string;
  /** The host name alone: scheme, path, query and port removed. */
  host: string;
  /** Whether the service accepts the name as it is, path, query or scheme included. */
  literal: boolean;
}

/**
 * The one reading of a name, for manifest entries and `ignore` patterns alike (`glob`: a pattern, whose
 * `?` is a wildcard): the service's scheme removal, then the name as it is when the service accepts it
 * so (that is the record stored under it), else its host name in punycode.
 */
export function nameOf(input: string, glob = false): WrittenName {
  const schemeless = serviceSchemesRemoved(input.trim());
  const host = extractHost(schemeless, glob);
  const literal = domainKey(schemeless);
  // What the service stores as it is, is that website: `export` writes such a record this way.
  if (literal !== '' && serviceAcceptsDomain(serviceStoredDomain(literal))) {
    return { written: literal, host, literal: true };
  }
  // The host in the spelling of a key (`domainKey`), or '' when it does not convert.
  const ascii = toAscii(host);
  return { written: ascii === '' ? '' : domainKey(ascii), host, literal: false };
}

/** A manifest entry's identity: the domain the service will store for it, or why it cannot. */
export function canonicalDomain(input: string): CanonicalDomainResult {
  if (isCanonical(input)) return { domain: input, warnings: [] };
  const { written, host, literal } = nameOf(input);
  if (literal) return identity(written, literalWarnings(written, domainKey(host)));
  if (written === '' && host !== '') {
    return { error: `${JSON.stringify(input.trim())} is not a valid internationalised domain name` };
  }
  const error = refusal(serviceStoredDomain(written), input);
  return error === undefined ? identity(written, []) : { error };
}

/** `written` is what a create sends; the service stores it as `domain`. */
function identity(written: string, extra: string[]): CanonicalDomainResult {
  const domain = storedKeyOf(written);
  const warnings = [...wwwWarnings(written, domain), ...(extra.length > 0 ? extra : unusualWarnings(domain))];
  return written === domain ? { domain, warnings } : { domain, warnings, written };
}

/** A name kept whole although it holds what a pasted address would lose (a path, a port, a scheme). */
function literalWarnings(literal: string, host: string): string[] {
  if (literal === host) return [];
  const stored = serviceStoredDomain(literal);
  const hostDomain = serviceStoredDomain(host);
  const instead =
    serviceAcceptsDomain(hostDomain) && hostDomain !== ''
      ? `; write "${hostDomain}" if you mean the website ${hostDomain}`
      : '';
  return [
    `the service accepts ${JSON.stringify(stored)} as a domain and stores it as written, not as a host name with a path or a port${instead}`,
  ];
}
