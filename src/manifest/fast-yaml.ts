// A reader for the plain subset of YAML that manifests are written in: block mappings and sequences,
// plain and quoted one-line scalars, one-line flow lists, literal blocks (`|`, `|-`) and comments.
// It exists for speed: the full `yaml` parser keeps a syntax tree with positions for every node, which
// costs seconds and hundreds of megabytes on a manifest of 100,000 websites. Anything outside the
// subset (anchors, tags, multi-line plain scalars, escapes, unusual numbers, duplicate keys, tabs, a
// key the caller does not know...) makes it give up with `undefined`, and the caller reads the file
// with `yaml` instead; so for every text it accepts, it returns exactly what `yaml` would
// (test/manifest/fast-yaml.test.ts compares the two).

import { expectEnd, GIVE_UP, giveUp, inlineValue } from './fast-yaml-scalars.js';

/** Told where the scalar value of each mapping entry starts (1-based line and column). */
export type ValueSink = (map: Record<string, unknown>, key: string, line: number, column: number) => void;

// Anything but printable ASCII, newlines and carriage returns (tabs and a BOM included).
const NOT_PLAIN_ASCII = /[^\x20-\x7e\n\r]/;
const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;

/**
 * The data of `text`, or undefined when it uses YAML beyond the fast subset, is not a mapping, or has
 * a mapping key other than `keys` (the caller's schema would refuse it anyway, with a message that
 * needs positions).
 */
export function readSimpleYaml(
  text: string,
  keys: readonly string[],
  onValue?: ValueSink,
): Record<string, unknown> | undefined {
  // Printable ASCII only: JavaScript's trimming and YAML's whitespace then agree (no no-break or em
  // spaces, no vertical tabs), so a manifest cannot mean one thing here and another in `yaml`.
  if (NOT_PLAIN_ASCII.test(text) || /\r(?!\n)/.test(text)) return undefined;
  try {
    return new Reader(text.replaceAll('\r\n', '\n'), keys, onValue).document();
  } catch (error) {
    // A stack overflow (nesting the depth check let through) is left to `yaml`, which locates it.
    if (error === GIVE_UP || error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * Walks the text line by line without splitting it: `#start`/`#end` delimit the current line (`#end`
 * at its newline), and columns are offsets from `#start`.
 */
class Reader {
  readonly #text: string;
  readonly #keys = new Map<number, string[]>();
  readonly #onValue: ValueSink | undefined;
  #start = 0;
  #end = 0;
  /** Indentation of the current line, measured once when the line is reached. */
  #indentation = 0;
  #line = -1;

  constructor(text: string, keys: readonly string[], onValue: ValueSink | undefined) {
    this.#text = text;
    this.#onValue = onValue;
    for (const key of keys) {
      const first = key.charCodeAt(0);
      this.#keys.set(first, [...(this.#keys.get(first) ?? []), key]);
    }
    this.#end = -1;
    this.#advance();
  }

  document(): Record<string, unknown> {
    this.#skipBlank();
    if (this.#atEnd() || this.#indent() !== 0 || this.#keyAt(0) === undefined) giveUp();
    const root = this.#mapping(0);
    this.#skipBlank();
    if (!this.#atEnd()) giveUp();
    return root;
  }

  #lineEnd(from: number): number {
    const end = this.#text.indexOf('\n', from);
    return end === -1 ? this.#text.length : end;
  }

  #advance(): void {
    this.#start = this.#end + 1;
    this.#line++;
    if (this.#start > this.#text.length) return;
    this.#end = this.#lineEnd(this.#start);
    let at = this.#start;
    while (at < this.#end && this.#text.charCodeAt(at) === SPACE) at++;
    this.#indentation = at - this.#start;
  }

  #atEnd(): boolean {
    return this.#start > this.#text.length;
  }

  #code(column: number): number {
    const at = this.#start + column;
    return at < this.#end ? this.#text.charCodeAt(at) : Number.NaN;
  }

  #indent(): number {
    return this.#indentation;
  }

  /** Empty, spaces only, or a comment. */
  #blank(): boolean {
    const indent = this.#indent();
    return this.#start + indent === this.#end || this.#code(indent) === HASH;
  }

  #skipBlank(): void {
    while (!this.#atEnd() && this.#blank()) this.#advance();
  }

  /** Indentation of the next non-blank line, or -1 at the end. */
  #nextIndent(): number {
    this.#skipBlank();
    return this.#atEnd() ? -1 : this.#indent();
  }

  #startsItem(column: number): boolean {
    if (this.#code(column) !== DASH) return false;
    return this.#start + column + 1 === this.#end || this.#code(column + 1) === SPACE;
  }

  /** The key (one of the caller's) that starts at `column`, followed by `:` and a space or the end. */
  #keyAt(column: number): string | undefined {
    for (const key of this.#keys.get(this.#code(column)) ?? []) {
      if (!this.#text.startsWith(key, this.#start + column)) continue;
      const after = column + key.length;
      if (this.#code(after) !== COLON) continue;
      if (this.#start + after + 1 === this.#end || this.#code(after + 1) === SPACE) return key;
    }
    return undefined;
  }

  /** The rest of the current line from `column`. */
  #rest(column: number): string {
    return this.#text.slice(this.#start + column, this.#end);
  }

  /** A block collection starting at `column` of the current line. */
  #node(column: number): unknown {
    if (this.#startsItem(column)) return this.#sequence(column);
    if (this.#keyAt(column) !== undefined) return this.#mapping(column);
    return giveUp();
  }

  /** The value of an entry whose key or dash ends the line: a nested collection, or null. */
  #nested(column: number, allowCompactSequence: boolean): unknown {
    this.#advance();
    const indent = this.#nextIndent();
    if (indent > column) return this.#node(indent);
    if (allowCompactSequence && indent === column && this.#startsItem(column)) return this.#sequence(column);
    return null;
  }

  /** A scalar, flow list or literal block starting on the current line; nothing may continue it. */
  #inline(column: number, parentIndent: number): unknown {
    const text = this.#rest(column);
    let value: unknown;
    if (text.startsWith('|')) {
      value = this.#literal(text, parentIndent);
    } else {
      value = inlineValue(text);
      this.#advance();
    }
    if (this.#nextIndent() > parentIndent) giveUp();
    return value;
  }

  /** First column from `column` that is not a space. */
  #skipSpaces(column: number): number {
    let at = column;
    while (this.#code(at) === SPACE) at++;
    return at;
  }

  /** Nothing (or only a comment) from `column` to the end of the line. */
  #endsAt(column: number): boolean {
    return this.#start + column === this.#end || this.#code(column) === HASH;
  }

  #mapping(column: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (;;) {
      const key = this.#keyAt(column) ?? giveUp();
      if (key === '__proto__' || Object.hasOwn(map, key)) giveUp();
      const valueColumn = this.#skipSpaces(column + key.length + 1);
      if (this.#endsAt(valueColumn)) {
        map[key] = this.#nested(column, true);
      } else {
        if (this.#code(valueColumn) !== 124) this.#onValue?.(map, key, this.#line + 1, valueColumn + 1);
        map[key] = this.#inline(valueColumn, column);
      }
      const indent = this.#nextIndent();
      if (indent < column) return map;
      if (indent > column || this.#startsItem(column)) giveUp();
    }
  }

  #sequence(column: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      if (this.#indent() !== column || !this.#startsItem(column)) giveUp();
      const itemColumn = this.#skipSpaces(column + 1);
      if (this.#endsAt(itemColumn)) items.push(this.#nested(column, false));
      else if (this.#startsItem(itemColumn)) giveUp();
      else if (this.#keyAt(itemColumn) !== undefined) items.push(this.#mapping(itemColumn));
      else items.push(this.#inline(itemColumn, column));
      const indent = this.#nextIndent();
      if (indent < column) return items;
      if (indent > column) giveUp();
      if (!this.#startsItem(column)) return items;
    }
  }

  /** `|` or `|-` (clip or strip); the header is on the current line. */
  #literal(header: string, parentIndent: number): string {
    const strip = header.startsWith('|-');
    expectEnd(header.slice(strip ? 2 : 1));
    const out: string[] = [];
    let indent = -1;
    let lastContent = -1;
    for (this.#advance(); !this.#atEnd(); this.#advance()) {
      const spaces = this.#indent();
      if (this.#start + spaces === this.#end) {
        // A line of spaces longer than the indentation is content in YAML; leave that to `yaml`.
        if (indent === -1 ? spaces > 0 : spaces > indent) giveUp();
        out.push('');
        continue;
      }
      if (indent === -1) {
        if (spaces <= parentIndent) break;
        indent = spaces;
      } else if (spaces < indent) {
        if (spaces > parentIndent && this.#code(spaces) !== HASH) giveUp();
        break;
      }
      out.push(this.#rest(indent));
      lastContent = out.length - 1;
    }
    const body = out.slice(0, lastContent + 1).join('\n');
    return lastContent === -1 || strip ? body : `${body}\n`;
  }
}
