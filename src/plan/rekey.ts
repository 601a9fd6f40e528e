import { type DesiredWebsite, type RemoteWebsite, SETTING_FIELDS, sameValue } from '../model/index.js';
import {
  fingerprint,
  fingerprintMatch,
  normalisationMatch,
  type RekeyedFingerprint,
  recordedFingerprint,
  type StateData,
} from '../state/index.js';
import type { Plan } from './types.js';

// After the API key is rotated, the fingerprints of write-only fields (keyed by the key) no longer match
// under the new key. A run given the key before it (`--previous-api-key-file`; a daemon, the key it
// replaced) recognises them still (compare.ts), so nothing is resent; the ones it recognised so are
// listed here, in `plan.remember`, and the next real run records them under the current key. The plan
// stays pure: it says what to record, the run records it.

/**
 * Adds to `plan.remember.rekeyed` each fingerprint of this website that holds the declared value under a
 * previous key only: the same comparisons as settingDiffers and comparePassword, ignored fields left out.
 * Costs nothing when the run has no previous key.
 */
export function rememberRekeyed(
  website: DesiredWebsite,
  remote: RemoteWebsite,
  state: StateData,
  plan: Plan,
): void {
  if (!state.previousKeys?.length) return;
  const ignored = website.ignoreFields ?? [];
  const rekeyed: RekeyedFingerprint[] = [];
  for (const field of SETTING_FIELDS) {
    if (ignored.includes(field)) continue;
    const wanted = website[field];
    const current = remote[field];
    if (current === undefined) {
      const recorded = recordedFingerprint(state, remote.id, field);
      if (fingerprintMatch(state, field, wanted, recorded) !== 'previous') continue;
      rekeyed.push({ id: remote.id, field, fingerprint: fingerprint(state, field, wanted) });
    } else if (
      !sameValue(wanted, current) &&
      normalisationMatch(state, remote.id, field, wanted, current) === 'previous'
    ) {
      rekeyed.push({
        id: remote.id,
        field,
        fingerprint: fingerprint(state, field, wanted),
        normalised: true,
      });
    }
  }
  const password = website.password;
  if (website.privacy === 2 && password !== undefined && !ignored.includes('password')) {
    const recorded = recordedFingerprint(state, remote.id, 'password');
    if (fingerprintMatch(state, 'password', password, recorded) === 'previous') {
      rekeyed.push({
        id: remote.id,
        field: 'password',
        fingerprint: fingerprint(state, 'password', password),
      });
    }
  }
  if (rekeyed.length === 0) return;
  plan.remember.rekeyed ??= [];
  plan.remember.rekeyed.push(...rekeyed);
}
