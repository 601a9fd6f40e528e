import { createHash } from 'node:crypto';
import { compareText, type DesiredState, type DesiredWebsite, type RemoteWebsite } from '../model/index.js';
import { fingerprint } from '../state/index.js';

// What a saved plan remembers of its inputs, as hashes. Records and the desired state hold no secret,
// so a plain SHA-256 of a canonical JSON form is enough; passwords get an HMAC keyed by the plan's salt.

function sha256(value: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(value)).digest('hex')}`;
}

/** A remote record as listed; a field the service did not return counts as null. */
export function recordHash(record: RemoteWebsite): string {
  return sha256([
    record.id,
    record.domain,
    record.privacy ?? null,
    record.email ?? null,
    record.exclude_bots ?? null,
    record.exclude_params ?? null,
    record.exclude_ips ?? null,
    record.hasPassword ?? null,
  ]);
}

/** A listed website's declaration; where it sits in the file does not count, nor the password's value. */
function websiteHash(website: DesiredWebsite): string {
  return sha256([
    website.domain,
    website.privacy,
    website.email,
    website.exclude_bots,
    website.exclude_params,
    website.exclude_ips,
    website.password !== undefined,
    // An undeclared write-only field is left alone, a declared one sent: they plan differently.
    ...(website.undeclared ? [website.undeclared] : []),
  ]);
}

export interface DesiredHashes {
  sha256: string;
  websites: Record<string, string>;
}

/** The canonical desired state: comments, order, spelling and `${…}` references make no difference. */
export function desiredHashes(desired: DesiredState): DesiredHashes {
  const websites = Object.fromEntries(
    [...desired.websites]
      .sort((a, b) => compareText(a.domain, b.domain))
      .map((website) => [website.domain, websiteHash(website)]),
  );
  const ignore = [...desired.ignore].sort();
  return { sha256: sha256({ prune: desired.prune, ignore, websites }), websites };
}

/**
 * HMAC of each password the manifest resolves to. The domain is part of the input, so two websites
 * sharing a password do not show it.
 */
/** `key`: fingerprintKey of the run's secret and the plan's salt, so the file alone reveals nothing. */
export function passwordHmacs(desired: DesiredState, key: string): Record<string, string> {
  return Object.fromEntries(
    desired.websites.flatMap((website) =>
      website.password === undefined
        ? []
        : [[website.domain, fingerprint({ key }, 'password', [website.domain, website.password])]],
    ),
  );
}
