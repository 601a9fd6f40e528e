import type { RemoteWebsite, WebsiteWrite } from '../model/index.js';
import { readRecord } from './answers.js';

// Translation between our model and the service's form bodies; answers are read by one schema
// (answers.ts).

export function encodeWrite(write: WebsiteWrite, domain?: string): URLSearchParams {
  const form = new URLSearchParams();
  if (domain !== undefined) form.set('domain', domain);
  if (write.privacy !== undefined) form.set('privacy', String(write.privacy));
  if (write.password !== undefined) form.set('password', write.password);
  if (write.email !== undefined) form.set('email', write.email ? '1' : '0');
  if (write.exclude_bots !== undefined) form.set('exclude_bots', write.exclude_bots ? '1' : '0');
  // An empty string clears the list: the service's middleware turns it into null.
  if (write.exclude_params !== undefined) form.set('exclude_params', write.exclude_params.join('\n'));
  if (write.exclude_ips !== undefined) form.set('exclude_ips', write.exclude_ips.join('\n'));
  return form;
}

/** One record read by the schema of answers (answers.ts); undefined when it is not a usable website. */
export function parseRecord(raw: unknown): RemoteWebsite | undefined {
  const reading = readRecord(raw, (text) => text);
  return 'record' in reading ? reading.record : undefined;
}
