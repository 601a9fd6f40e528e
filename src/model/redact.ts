// Secrets must never reach an output, whatever the service echoes back: a 422 quoting the password,
// an HTML error page repeating the Authorization header. Every text the tool writes (stdout, stderr,
// log lines, saved plans, exported manifests) passes through one Redactor that knows the API key and
// every password of the manifest, in every spelling they can take on the way (redact-spellings.ts).
import { redactJsonStrings } from './redact-json.js';
import { base64Pattern, cutLength, secretPattern } from './redact-spellings.js';
import { eachDocument, shownJson, terminalText } from './shown-text.js';

/**
 * Shorter secrets are masked only where they stand as a word of their own (not inside a longer run of
 * letters and digits): masking every "abc" in the output would make it unreadable, yet a 422 quoting a
 * 3-character password must not print it.
 */
export const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[redacted]';

interface Secret {
  text: string;
  /**
   * Its longest run of letters and digits (in lower case; within the start a cut may leave), which
   * every spelling keeps as it is but for case and numeric entities ('' when none).
   */
  anchor: string;
  /**
   * Every run of letters and digits of that start (in lower case): a text without numeric entities
   * holds them all wherever it holds the secret, so a secret is tried only there. When thousands of
   * secrets share an anchor (`Company2024-shop`, `Company2024-blog`), this keeps a line that holds it
   * from being searched for each of them.
   */
  runs: string[];
  pattern: RegExp;
  /** The same, with letters and digits as numeric entities too: compiled for a text with `&#`. */
  entityPattern: () => RegExp;
}

/** Anchors are indexed by their first characters, this many of them. */
const KEY_LENGTH = 4;
/** Letters (either case) and digits as 1..36; 0 for any other character. */
const BASE = 37;
const KEYS = BASE ** KEY_LENGTH;

function anchorCode(char: number): number {
  if (char >= 48 && char <= 57) return char - 47;
  if (char >= 97 && char <= 122) return char - 86;
  if (char >= 65 && char <= 90) return char - 54;
  return 0;
}

/** The value of the first `length` characters of `text` as a number in base 37. */
function keyOf(text: string, length: number): number {
  let key = 0;
  for (let i = 0; i < length; i++) key = key * BASE + anchorCode(text.charCodeAt(i));
  return key;
}

/**
 * Finds which secrets a text may hold, quickly, whatever their number: one pass over the text keeps
 * the value of its last four letters or digits, and only where an anchor starts with those is the
 * anchor compared (in either case). Shorter anchors are looked up by value and length.
 */
class AnchorIndex {
  readonly #byKey = new Map<number, string[]>();
  readonly #keyed = new Uint8Array(KEYS);
  readonly #short = new Map<number, string>();

  constructor(anchors: Iterable<string>) {
    for (const anchor of new Set(anchors)) {
      if (anchor === '') continue;
      if (anchor.length < KEY_LENGTH) {
        this.#short.set(keyOf(anchor, anchor.length) * KEY_LENGTH + anchor.length, anchor);
        continue;
      }
      const key = keyOf(anchor, KEY_LENGTH);
      this.#keyed[key] = 1;
      this.#byKey.set(key, [...(this.#byKey.get(key) ?? []), anchor]);
    }
  }

  /** Adds the anchors that occur in `text` to `found`. */
  find(text: string, found: Set<string>): void {
    const short = this.#short.size > 0;
    let window = 0;
    let run = 0;
    for (let i = 0; i < text.length; i++) {
      const code = anchorCode(text.charCodeAt(i));
      if (code === 0) {
        run = 0;
        window = 0;
        continue;
      }
      run++;
      window = (window * BASE + code) % KEYS;
      if (short) this.#findShort(window, Math.min(run, KEY_LENGTH - 1), found);
      if (run < KEY_LENGTH || this.#keyed[window] === 0) continue;
      const start = i - KEY_LENGTH + 1;
      for (const anchor of this.#byKey.get(window) ?? [])
        if (startsAt(text, start, anchor)) found.add(anchor);
    }
  }

  /** The short anchors that end where `window` (the last characters' value) does. */
  #findShort(window: number, longest: number, found: Set<string>): void {
    for (let length = 1, size = BASE; length <= longest; length++, size *= BASE) {
      const anchor = this.#short.get((window % size) * KEY_LENGTH + length);
      if (anchor !== undefined) found.add(anchor);
    }
  }
}

/** Whether `anchor` (in lower case) stands in `text` at `start`, in either case. */
function startsAt(text: string, start: number, anchor: string): boolean {
  if (start + anchor.length > text.length) return false;
  for (let k = KEY_LENGTH; k < anchor.length; k++) {
    if (anchorCode(text.charCodeAt(start + k)) !== anchorCode(anchor.charCodeAt(k))) return false;
  }
  return true;
}

const runsOf = (text: string) => [
  ...new Set((text.match(/[A-Za-z0-9]+/g) ?? []).map((run) => run.toLowerCase())),
];
const longest = (runs: string[]) =>
  runs.reduce((found, run) => (run.length > found.length ? run : found), '');

/** The secret itself, and its base64: each masked in every spelling. */
function compile(text: string): Secret[] {
  const cut = cutLength(text);
  const short = text.length < MIN_SECRET_LENGTH;
  // A short secret is masked only where it stands alone (see MIN_SECRET_LENGTH).
  const regex = (pattern: string) =>
    new RegExp(short ? `(?<![\\p{L}\\p{N}])(?:${pattern})(?![\\p{L}\\p{N}])` : pattern, 'gu');
  let entityPattern: RegExp | undefined;
  const base64 = Buffer.from(text, 'utf8').toString('base64');
  const base64Regex = regex(base64Pattern(text));
  const runs = runsOf(cut === undefined ? text : [...text].slice(0, cut).join(''));
  const base64Runs = runsOf(base64);
  return [
    {
      text,
      anchor: longest(runs),
      runs,
      pattern: regex(secretPattern(text, false)),
      entityPattern: () => {
        entityPattern ??= regex(secretPattern(text, true));
        return entityPattern;
      },
    },
    {
      text: base64,
      anchor: longest(base64Runs),
      runs: base64Runs,
      pattern: base64Regex,
      entityPattern: () => base64Regex,
    },
  ];
}

/** Numeric HTML entities decoded, so that an anchor spelled with them is found too. */
function decodeEntities(text: string): string {
  return text.replace(
    /&#(?:[xX]0*([0-9a-fA-F]{1,6})|0*([0-9]{1,7}));?/g,
    (entity, hex?: string, decimal?: string) => {
      const code = hex === undefined ? Number(decimal) : Number.parseInt(hex, 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    },
  );
}

export class Redactor {
  /** Each secret (and its base64) by the secret's text. */
  readonly #secrets = new Map<string, Secret[]>();
  /** By anchor, longest secret first, so a secret that contains another is removed whole. */
  #byAnchor: Map<string, Secret[]> | undefined;
  #index: AnchorIndex | undefined;

  /**
   * Remembers a secret (in all its spellings) from now on; empty values are skipped. Whitespace around
   * it is not part of what is masked: an excerpt may have trimmed it. Returns the secret as it is
   * masked when it is new, else undefined.
   */
  add(secret: string | undefined): string | undefined {
    const core = secret?.trim();
    if (core === undefined || core === '' || this.#secrets.has(core)) return undefined;
    this.#secrets.set(core, compile(core));
    this.#byAnchor = undefined;
    this.#index = undefined;
    return core;
  }

  redact(text: string): string {
    if (this.#secrets.size === 0) return text;
    const byAnchor = this.#byAnchorMap();
    this.#index ??= new AnchorIndex(byAnchor.keys());
    const found = new Set<string>();
    this.#index.find(text, found);
    const entities = text.includes('&#');
    if (entities) this.#index.find(decodeEntities(text), found);
    const lower = entities ? undefined : text.toLowerCase();
    const candidates = [...(byAnchor.get('') ?? [])];
    for (const anchor of found) {
      for (const secret of byAnchor.get(anchor) ?? []) {
        if (lower === undefined || secret.runs.every((run) => lower.includes(run))) candidates.push(secret);
      }
    }
    if (candidates.length === 0) return text;
    candidates.sort((a, b) => b.text.length - a.text.length);
    return candidates.reduce(
      (result, secret) => result.replace(entities ? secret.entityPattern() : secret.pattern, REDACTED),
      text,
    );
  }

  /**
   * Text for a person (a terminal, a log line, a file, a webhook): secrets masked, then every character
   * a terminal would interpret shown escaped (shown-text.ts), the tool's own codes kept; a JSON document
   * the tool marked as one (`jsonDocument`) as `showJson` shows it. The one way out for text: nothing is
   * masked but not escaped, or escaped but not masked.
   */
  show(text: string): string {
    return eachDocument(
      text,
      (part) => terminalText(this.redact(part)),
      (json) => this.showJson(json),
    );
  }

  /**
   * A JSON text with secrets masked in its strings only (redact-json.ts), so that it stays the same
   * document; a text that is not JSON is masked as any text.
   */
  redactJson(json: string): string {
    const masked = this.redact(json);
    // The tool's JSON (JSON.stringify, pino) writes letters and digits as themselves: a text that holds
    // no secret as it is written holds none in its strings either.
    if (masked === json) return json;
    return redactJsonStrings(json, (text) => this.redact(text)) ?? masked;
  }

  /** JSON text, masked (`redactJson`), with the characters `show` escapes as JSON escapes: the exact values. */
  showJson(text: string): string {
    return shownJson(this.redactJson(text));
  }

  #byAnchorMap(): Map<string, Secret[]> {
    if (this.#byAnchor) return this.#byAnchor;
    const byAnchor = new Map<string, Secret[]>();
    for (const secret of [...this.#secrets.values()].flat()) {
      const same = byAnchor.get(secret.anchor);
      if (same) same.push(secret);
      else byAnchor.set(secret.anchor, [secret]);
    }
    this.#byAnchor = byAnchor;
    return byAnchor;
  }
}
