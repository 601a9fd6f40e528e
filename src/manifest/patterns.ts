// The validator's string rules as JSON Schema patterns (ECMAScript regular expressions, unanchored),
// for the editor schema. Each is a SUPERSET of what validate accepts: an editor must never flag a
// manifest that validate accepts, so where a rule cannot be written exactly (domains are canonicalised
// first) the pattern accepts more. test/manifest/patterns.test.ts checks each against the validator.
// Editors show `patternErrorMessage` (a VS Code / yaml-language-server extension) instead of the regex.
import { REFERENCE_SYNTAX } from './interpolate.js';

// Read left to right as interpolation reads it: `$${` first, so a `$` stands alone only before neither.
const { name, fallback } = REFERENCE_SYNTAX;
const TOKEN = `[^$]|\\$(?!\\$?\\{)|\\$\\$\\{|\\$\\{${name}(?::-${fallback})?\\}`;
/**
 * A string interpolation accepts (interpolate.ts): every `${` in it is part of a reference (`${NAME}`,
 * `${NAME:-default}`) or of `$${` (a literal `${`). Any other `${` (`${NAME`, `${1}`) is an error in
 * every string of the manifest, whatever the field.
 */
export const INTERPOLABLE_PATTERN = `^(?:${TOKEN})*$`;
/**
 * A string that interpolation rewrites: it holds `${`, and is interpolable. Its value is known only at
 * run time, so nothing else can be checked; a string without `${` is checked as written, exactly as
 * validate checks it.
 */
export const REFERENCE_PATTERN = `^(?=[\\s\\S]*\\$\\{)(?:${TOKEN})*$`;
/** Holds `${`: such a string is checked as a reference, never as written. */
export const HOLDS_REFERENCE = '\\$\\{';

// Node's net.isIP, which validate uses, written out (lib/internal/net.js): IPv4 without leading zeros,
// IPv6 in every compressed form, with an embedded IPv4 and an optional zone (`%eth0`).
const V4_SEG = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const V4 = `(?:${V4_SEG}\\.){3}${V4_SEG}`;
const V6_SEG = '(?:[0-9a-fA-F]{1,4})';
const V6 = [
  `(?:${V6_SEG}:){7}(?:${V6_SEG}|:)`,
  `(?:${V6_SEG}:){6}(?:${V4}|:${V6_SEG}|:)`,
  `(?:${V6_SEG}:){5}(?::${V4}|(?::${V6_SEG}){1,2}|:)`,
  `(?:${V6_SEG}:){4}(?:(?::${V6_SEG}){0,1}:${V4}|(?::${V6_SEG}){1,3}|:)`,
  `(?:${V6_SEG}:){3}(?:(?::${V6_SEG}){0,2}:${V4}|(?::${V6_SEG}){1,4}|:)`,
  `(?:${V6_SEG}:){2}(?:(?::${V6_SEG}){0,3}:${V4}|(?::${V6_SEG}){1,5}|:)`,
  `(?:${V6_SEG}:){1}(?:(?::${V6_SEG}){0,4}:${V4}|(?::${V6_SEG}){1,6}|:)`,
  `(?::(?:(?::${V6_SEG}){0,5}:${V4}|(?::${V6_SEG}){1,7}|:))`,
].join('|');
/** One IP address, as `isIP` accepts it. */
export const IP_ENTRY = `(?:${V4}|(?:${V6})(?:%[0-9a-zA-Z\\-.:]{1,})?)`;

/** One query parameter name: no whitespace, `&`, `=`, `?` or `#` (fields.ts). */
export const PARAM_ENTRY = '[^\\s&=?#]+';

/**
 * A list item: blank, or one entry with whitespace around it (entries are trimmed, blank ones skipped).
 * `entry` must not match whitespace.
 */
export function itemPattern(entry: string): string {
  return `^\\s*(?:${entry})?\\s*$`;
}

/** A one-per-line string: every line, trimmed, is blank or one entry. `entry` must not match whitespace. */
export function linesPattern(entry: string): string {
  return `^\\s*(?:(?:${entry})(?:[^\\S\\n]*\\n\\s*(?:${entry}))*)?\\s*$`;
}

/** A duration as parseDurationMs reads it: "0", or amounts with units ("1h30m", "1.5d", "500ms"). */
export const DURATION_PATTERN = '^\\s*(?:0|(?:[0-9]+(?:\\.[0-9]+)?(?:ms|s|m|h|d))+)\\s*$';

const HTTP = '[hH][tT][tT][pP][sS]?://';
/**
 * A domain as canonicalDomain accepts it. Exact where it can be: an ASCII name, optionally after a
 * scheme and before a port (spaces allowed before it), trailing dots and a path, whose last label is letters, digits
 * and hyphens after at least one character and a dot (the service's rule; other labels may hold
 * anything, e.g. underscores, and a name the service accepts as it is keeps its path or query). Where canonicalisation rewrites the text it only asks for what must
 * survive: any non-ASCII character (an IDN, converted to punycode) is accepted, and so is a name with
 * `http(s)://` inside it (removed wherever it stands) and a dot.
 */
export const DOMAIN_PATTERN = [
  '[^\\x00-\\x7F]',
  `${HTTP}[\\s\\S]*\\.`,
  `\\.[\\s\\S]*${HTTP}`,
  '^\\s*(?:[A-Za-z][A-Za-z0-9+.\\-]*://)?[^/?#]+\\.[A-Za-z0-9\\-]+\\.*\\s*(?::[0-9]*)?(?:[/?#][\\s\\S]*|\\s*)$',
  // A name the service stores as it is (`example.com/index.html`, `q?x.example.com`): anything, then a
  // dot and a last label.
  '[^\\s]\\.[A-Za-z0-9\\-]+\\.*\\s*$',
].join('|');
