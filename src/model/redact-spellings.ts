// The spellings a secret may take on its way to an output, as regular expressions (for redact.ts).
// Letters match in either case. Any character may come as a numeric HTML entity (`&#80;`, `&#x50;`, the
// `;` left out or not); any other than a letter or digit also as a named entity (`&amp;`, with or
// without `;`), JSON-escaped (`\"`, `\u00e9`, escaped again inside a JSON log line), URL- or
// form-encoded once or twice (`%26`, `%2526`, `+`), `@` and `#` followed by the zero-width space of
// Markdown written for GitHub (`@&#8203;`); a run of whitespace may come folded into one
// space (an HTML page, an excerpt) or spelled otherwise. The secret's base64 (standard or URL-safe,
// padded or not) is masked as it is. A long enough start of the secret that the text cuts short is
// masked too (`cutLength`).

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

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
 * Where a text may have cut a secret short: its end, whitespace (a line end), `…` or `...`, a quote
 * or `<`, in the spellings of a JSON string (any escape), an HTML page (any numeric entity) or a URL.
 */
const CUT = '(?=$|[\\s"\'`<\u2026\\\\]|\\.\\.\\.|&(?:quot|apos|lt|hellip|#)|%(?:25)?(?:22|27|3[cC]|[eE]2))';
/** A start of a secret this long or longer is masked where the text cuts it (and see `cutLength`). */
export const MIN_CUT_LENGTH = 8;
/** A start made only of letters (it could be an ordinary word) is masked only from this length. */
export const MIN_CUT_WORD_LENGTH = 16;

/** The character in either case (when each case is one code point). */
function cases(char: string): string[] {
  const both = [char, char.toLowerCase(), char.toUpperCase()].filter((c) => [...c].length === 1);
  return [...new Set(both)];
}

/** ASCII letters in either case: amp → [aA][mM][pP]. */
const eitherCase = (text: string) =>
  text.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);

/** A hexadecimal number in either case: 2f → 2[fF]. */
const hex = (n: number, width = 0) => eitherCase(n.toString(16).padStart(width, '0'));

const oneOf = (list: string[]) => (list.length === 1 ? (list[0] ?? '') : `(?:${list.join('|')})`);

function numericEntities(chars: string[]): string[] {
  const codes = chars.map((c) => c.codePointAt(0) ?? 0);
  return [`&#0*${oneOf(codes.map(String))};?`, `&#[xX]0*${oneOf(codes.map((code) => hex(code)))};?`];
}

/**
 * The encoded spellings of one character (a code point) as regular expressions: `plain` ones, which may
 * stand after backslashes (a JSON string escaped again), and backslash `escapes`.
 */
function encodings(char: string): { plain: string[]; escapes: string[] } {
  const named = NAMED_ENTITIES[char];
  const short = JSON_SHORT_ESCAPES[char];
  const all = cases(char);
  const unitsOf = (c: string) => Array.from({ length: c.length }, (_, i) => c.charCodeAt(i));
  return {
    plain: [
      ...numericEntities(all),
      ...(named ? [`&${eitherCase(named)};?`] : []),
      ...all.map((c) => [...utf8.encode(c)].map((byte) => `%(?:25)?${hex(byte, 2)}`).join('')),
    ],
    escapes: [
      ...all.map((c) =>
        unitsOf(c)
          .map((unit) => `${ESCAPE}u${hex(unit, 4)}`)
          .join(''),
      ),
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

/**
 * Every spelling of one character (a code point) as a regular expression. A letter or digit is
 * itself, or with `entities` also a numeric entity: a text without `&#` is searched without those,
 * which keep the expression several times smaller (each one compiled costs memory).
 */
function charSpellings(char: string, entities: boolean): string {
  const alphanumeric = /^[A-Za-z0-9]$/.test(char);
  if (alphanumeric && !entities) return eitherCase(char);
  let pattern = spellings.get(char);
  if (pattern === undefined) {
    if (alphanumeric) {
      pattern = `(?:${eitherCase(char)}|${numericEntities(cases(char)).join('|')})`;
    } else {
      const { plain, escapes } = encodings(char);
      pattern = group([...cases(char).map(escapeRegExp), ...plain], escapes);
      if (char === '@' || char === '#') pattern += NOT_A_REFERENCE;
    }
    spellings.set(char, pattern);
  }
  return pattern;
}

/**
 * What Markdown for GitHub writes after `@` and `#` (escapeMarkdown, plan/render-markdown.ts), so that
 * neither mentions anyone nor links an issue: a zero-width space, as a character reference or itself.
 */
const NOT_A_REFERENCE = '(?:&#8203;|\u200b)?';

/** A run of whitespace: any whitespace, spelled any way, as often as it comes (folded or not). */
function whitespaceRun(run: string): string {
  const all = [...new Set([...' \t\n\r\u00a0', ...run])].map(encodings);
  const plain = new Set(all.flatMap((spelling) => spelling.plain));
  const escapes = new Set(all.flatMap((spelling) => spelling.escapes));
  // `+` is a form-encoded space; `%2B` the same encoded again.
  return `${group(['\\s', '\\+', '%(?:25)?2[bB]', ...plain], [...escapes])}+`;
}

/** A run of backslashes, escaped up to twice (each escaping doubles them), or encoded. */
function backslashRun(run: string): string {
  const { plain, escapes } = encodings('\\');
  return `(?:\\\\{${run.length},${run.length * 4}}|${group(plain, escapes)}{${run.length}})`;
}

/** One piece of a secret: a character, or a run of whitespace or of backslashes. */
interface Unit {
  pattern: string;
  /** Characters (code points) of the secret up to the end of this unit. */
  end: number;
  whitespace: boolean;
}

function units(secret: string, entities: boolean): Unit[] {
  const out: Unit[] = [];
  let end = 0;
  for (const part of secret.split(/(\s+|\\+)/u)) {
    if (part === '') continue;
    const whitespace = /^\s/u.test(part);
    if (whitespace || part.startsWith('\\')) {
      end += [...part].length;
      out.push({ pattern: whitespace ? whitespaceRun(part) : backslashRun(part), end, whitespace });
    } else {
      for (const char of part)
        out.push({ pattern: charSpellings(char, entities), end: ++end, whitespace: false });
    }
  }
  return out;
}

/**
 * How many characters of `secret` a text must show before a cut for them to be masked: at least
 * MIN_CUT_LENGTH and two thirds of the secret, and, while they are only letters, MIN_CUT_WORD_LENGTH;
 * undefined when that is the whole secret.
 */
export function cutLength(secret: string): number | undefined {
  const chars = [...secret];
  const firstNonLetter = chars.findIndex((char) => !/\p{L}/u.test(char));
  const wordEnd = firstNonLetter === -1 ? chars.length : firstNonLetter + 1;
  const length = Math.max(
    MIN_CUT_LENGTH,
    Math.ceil((chars.length * 2) / 3),
    Math.min(wordEnd, MIN_CUT_WORD_LENGTH),
  );
  return length < chars.length ? length : undefined;
}

/**
 * The secret in every spelling (its letters and digits as numeric entities too with `entities`); and,
 * when the text cuts it short after `cutLength` characters or more, that start of it. Each further
 * piece is optional, down to a cut.
 */
export function secretPattern(secret: string, entities: boolean): string {
  const pieces = units(secret, entities);
  const cut = cutLength(secret);
  const required = cut === undefined ? pieces.length : pieces.findIndex((unit) => unit.end >= cut) + 1;
  let tail = '';
  for (let i = pieces.length - 1; i >= required; i--) {
    // A start is not cut right after whitespace: that whitespace is the cut.
    const stop = pieces[i - 1]?.whitespace ? '' : `|${CUT}`;
    tail = `(?:${pieces[i]?.pattern}${tail}${stop})`;
  }
  return (
    pieces
      .slice(0, required)
      .map((unit) => unit.pattern)
      .join('') + tail
  );
}

/** The secret's base64, standard or URL-safe, padded or not, also URL-encoded or JSON-escaped. */
export function base64Pattern(secret: string): string {
  const encoded = Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, '');
  const padding = (4 - (encoded.length % 4)) % 4;
  const body = [...encoded]
    .map((char) => (char === '+' ? '(?:\\+|-|%2[bB])' : char === '/' ? '(?:/|_|%2[fF]|\\\\/)' : char))
    .join('');
  return padding === 0 ? body : `${body}(?:=|%3[dD]){0,${padding}}`;
}
