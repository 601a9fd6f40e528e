// Everything `export` and `restore` write that comes from the account, a backup or the command line
// passes through here: a value must read back as exactly itself, and a comment must stay a comment.

import { mapStrings } from '../model/index.js';

/**
 * A string value of the manifest, written so that reading it back (interpolation included) gives
 * `text`: every `${` becomes `$${`, the manifest's literal `${` (YAML quoting is the writer's).
 */
export function manifestText(text: string): string {
  // A function, not a replacement string: in one of those, `$$` would stand for a single `$`.
  return text.replaceAll('${', () => '$${');
}

/** Every string of a value (an entry, a list), through `manifestText`. */
export function manifestValue<T>(value: T): T {
  return mapStrings(value, manifestText);
}

/** Line breaks of any kind, which an editor or a reader could take for the end of a comment. */
const BREAKS = /[\u0085\u2028\u2029]/g;

/** Text from outside (a domain, a path, a URL) inside a comment: quoted, on one line. */
export function commentText(text: string): string {
  return JSON.stringify(text).replace(BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
