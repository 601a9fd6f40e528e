// Secrets must never reach an output, whatever the service echoes back: a 422 quoting the password,
// an HTML error page repeating the Authorization header. Every text the tool writes (stdout, stderr,
// log lines, saved plans, exported manifests) passes through one Redactor that knows the API key and
// every password of the manifest, in every spelling they can take on the way: each character that is
// not a letter or digit may come JSON-escaped (`\"`, `\u00e9`, escaped again inside a JSON log line),
// as an HTML entity (`&amp;`, `&#039;`, `&#x27;`), URL- or form-encoded (`%26`, `+`), and a run of
// whitespace may come folded into one space (an HTML page, an excerpt) or spelled otherwise.

/**
 * Shorter secrets are masked only where they stand as a word of their own (not inside a longer run of
 * letters and digits): masking every "abc" in the output would make it unreadable, yet a 422 quoting a
 * 3-character password must not print it.
 */
export const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[redacted]';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A hexadecimal number in either case: 2f → 2[fF]. */
function hex(n: number, width = 0): string {
  return n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

const NAMED_ENTITIES: Record<string, string> = {
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  '"': 'quot',
  "'": 'apos',
  '\u00a0': 'nbsp',
};
const JSON_SHORT_ESCAPES: Record<string, string> = { '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };
/** Backslashes of one escape, escaped again up to twice (a JSON string inside a JSON log line). */
const ESCAPE = '\\\\{1,4}';
const utf8 = new TextEncoder();
const spellings = new Map<string, string>();

/**
 * The encoded spellings of one character (a code point) as regular expressions: `plain` ones, which may
 * stand after backslashes (a JSON string escaped again), and backslash `escapes`.
 */
function encodings(char: string): { plain: string[]; escapes: string[] } {
  const code = char.codePointAt(0) ?? 0;
  const named = NAMED_ENTITIES[char];
  const short = JSON_SHORT_ESCAPES[char];
  const units = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
  return {
    plain: [
      `&#0*${code};`,
      `&#[xX]0*${hex(code)};`,
      ...(named ? [`&${named};`] : []),
      [...utf8.encode(char)].map((byte) => `%${hex(byte, 2)}`).join(''),
    ],
    escapes: [
      units.map((unit) => `${ESCAPE}u${hex(unit, 4)}`).join(''),
      ...(short ? [`${ESCAPE}${short}`] : []),
    ],
  };
}

/**
 * One group of alternatives. The backslashes before a spelling are bounded, and no two alternatives
 * match the same text, so a long run of backslashes or spaces costs a few steps per character, not a
 * backtracking search.
 */
const group = (plain: string[], escapes: string[]) =>
  `(?:\\\\{0,3}(?:${plain.join('|')})|${escapes.join('|')})`;

/** Every spelling of one character (a code point) as a regular expression. */
function charSpellings(char: string): string {
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  let pattern = spellings.get(char);
  if (pattern === undefined) {
    const { plain, escapes } = encodings(char);
    pattern = group([escapeRegExp(char), ...plain], escapes);
    spellings.set(char, pattern);
  }
  return pattern;
}

/** A run of whitespace: any whitespace, spelled any way, as often as it comes (folded or not). */
function whitespaceRun(run: string): string {
  const all = [...new Set([...' \t\n\r\u00a0', ...run])].map(encodings);
  const plain = new Set(all.flatMap((spelling) => spelling.plain));
  const escapes = new Set(all.flatMap((spelling) => spelling.escapes));
  return `${group(['\\s', '\\+', ...plain], [...escapes])}+`;
}

/** A run of backslashes, escaped up to twice (each escaping doubles them), or encoded. */
function backslashRun(run: string): string {
  const { plain, escapes } = encodings('\\');
  return `(?:\\\\{${run.length},${run.length * 4}}|${group(plain, escapes)}{${run.length}})`;
}

function secretPattern(secret: string): string {
  return secret
    .split(/(\s+|\\+)/u)
    .filter((part) => part !== '')
    .map((part) => {
      if (/^\s/u.test(part)) return whitespaceRun(part);
      if (part.startsWith('\\')) return backslashRun(part);
      return [...part].map(charSpellings).join('');
    })
    .join('');
}

interface Secret {
  text: string;
  /** Its longest run of letters and digits, which every spelling keeps as it is ('' when none). */
  anchor: string;
  pattern: RegExp;
}

/**
 * Finds which secrets a text may hold, quickly: one search for all their anchors at once. At each
 * position it reports the longest anchor found there; the shorter ones found there are its prefixes.
 */
class AnchorIndex {
  readonly #search: RegExp | undefined;
  readonly #prefixes = new Map<string, string[]>();

  constructor(anchors: Iterable<string>) {
    const all = new Set(anchors);
    all.delete('');
    for (const anchor of all) {
      const prefixes = [...anchor].map((_, i) => anchor.slice(0, i + 1)).filter((p) => all.has(p));
      this.#prefixes.set(anchor, prefixes);
    }
    const longestFirst = [...all].sort((a, b) => b.length - a.length);
    this.#search = all.size > 0 ? new RegExp(`(?=(${longestFirst.join('|')}))`, 'g') : undefined;
  }

  /** The anchors that occur in `text`. */
  found(text: string): Set<string> {
    const found = new Set<string>();
    if (!this.#search) return found;
    for (const match of text.matchAll(this.#search)) {
      for (const prefix of this.#prefixes.get(match[1] ?? '') ?? []) found.add(prefix);
    }
    return found;
  }
}

function compile(text: string): Secret {
  const runs = text.match(/[A-Za-z0-9]+/g) ?? [];
  const anchor = runs.reduce((longest, run) => (run.length > longest.length ? run : longest), '');
  const pattern = secretPattern(text);
  // A short secret is masked only where it stands alone (see MIN_SECRET_LENGTH).
  const bounded =
    text.length < MIN_SECRET_LENGTH ? `(?<![\\p{L}\\p{N}])(?:${pattern})(?![\\p{L}\\p{N}])` : pattern;
  return { text, anchor, pattern: new RegExp(bounded, 'gu') };
}

export class Redactor {
  /** Each secret by its text. */
  readonly #secrets = new Map<string, Secret>();
  /** By anchor, longest secret first, so a secret that contains another is removed whole. */
  #byAnchor: Map<string, Secret[]> | undefined;
  #index: AnchorIndex | undefined;

  /**
   * Remembers a secret (in all its spellings) from now on; empty values are skipped. Whitespace around
   * it is not part of what is masked: an excerpt may have trimmed it.
   */
  add(secret: string | undefined): void {
    const core = secret?.trim();
    if (core === undefined || core === '' || this.#secrets.has(core)) return;
    this.#secrets.set(core, compile(core));
    this.#byAnchor = undefined;
    this.#index = undefined;
  }

  redact(text: string): string {
    if (this.#secrets.size === 0) return text;
    const byAnchor = this.#byAnchorMap();
    this.#index ??= new AnchorIndex(byAnchor.keys());
    const candidates = [...(byAnchor.get('') ?? [])];
    for (const anchor of this.#index.found(text)) candidates.push(...(byAnchor.get(anchor) ?? []));
    candidates.sort((a, b) => b.text.length - a.text.length);
    return candidates.reduce((result, secret) => result.replace(secret.pattern, REDACTED), text);
  }

  #byAnchorMap(): Map<string, Secret[]> {
    if (this.#byAnchor) return this.#byAnchor;
    const byAnchor = new Map<string, Secret[]>();
    for (const secret of this.#secrets.values()) {
      const same = byAnchor.get(secret.anchor);
      if (same) same.push(secret);
      else byAnchor.set(secret.anchor, [secret]);
    }
    this.#byAnchor = byAnchor;
    return byAnchor;
  }
}
