import type { Logger } from 'pino';
import {
  type RemoteWebsite,
  SETTING_FIELDS,
  type SettingField,
  sameValue,
  type WebsiteWrite,
} from '../model/index.js';
import { clearNormalised, recordApplied, recordNormalised, type StateData } from '../state/index.js';

// After a successful write, the response tells us what the service now holds. Fields it does not
// return get a fingerprint of what we sent; fields it returns in another form get that form remembered,
// so the next plan does not propose the same change forever.

export function recordWrite(
  state: StateData,
  record: RemoteWebsite,
  written: WebsiteWrite,
  logger: Logger,
): void {
  if (written.password !== undefined) recordApplied(state, record, 'password', written.password);
  for (const field of SETTING_FIELDS) {
    if (!(field in written)) continue;
    const sent = written[field];
    const shown = record[field];
    if (shown === undefined) {
      recordApplied(state, record, field, sent);
    } else if (sameValue(sent, shown)) {
      clearNormalised(state, record.id, field);
    } else {
      recordNormalised(state, record, field, sent, shown);
      logger.warn(
        { domain: record.domain, id: record.id, field, sent, shown },
        'the service stored another form of the value sent; treating them as equal until the manifest changes',
      );
    }
  }
}

/** The full settings of a created website: what we sent, and the service's defaults for the rest. */
export function createdSettings(send: WebsiteWrite, defaults: Record<SettingField, unknown>): WebsiteWrite {
  const full: Record<string, unknown> = { ...send };
  for (const field of SETTING_FIELDS) if (!(field in full)) full[field] = defaults[field];
  return full as WebsiteWrite;
}
