import { domainKey, storedKeyOf } from './domain.js';

/**
 * Which website a record is: its domain as the service stored it, in the canonical spelling (lower-case,
 * punycode, no trailing dot), so a record the web UI stored in another form still matches. A leading
 * `www.` stays: records stored before the service's `www.` rule are matched as stored.
 */
export function websiteKey(domain: string): string {
  return domainKey(domain);
}

/**
 * The name a record answers to besides its key: what the service would store for it today. A record
 * stored as `www.legacy.example.com` before the `www.` rule is the website a manifest entry
 * `legacy.example.com` means, and an ignore pattern written either way protects it.
 */
export function storedKey(domain: string): string {
  return storedKeyOf(websiteKey(domain));
}

/**
 * The one order of names and other text the tool shows or fingerprints: by UTF-16 code unit, the same on
 * every machine. Never `localeCompare`: it orders by the user's locale (Danish sorts `aa` after `z`),
 * so a plan would list its changes in another order, and a plan saved on one machine would not be
 * recognised on another (lint/no-locale-compare.grit).
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A stable order of ids of either kind: numbers by value first, then strings. */
export function compareIds(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareText(a, b);
}
