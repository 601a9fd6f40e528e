import { randomBytes } from 'node:crypto';
import { mapStrings } from './map-strings.js';

// Text from outside (a domain the service holds, its messages, a manifest's values, a file name) may
// hold characters a terminal, an editor or a web page interprets instead of showing: ESC sequences that
// reset or hide the screen, a carriage return that overwrites a line, a right-to-left override that
// reverses one, a zero-width character that makes two names look alike. Every text the tool writes for
// a person passes through `shownText` (through the Redactor's `show`): such characters are shown
// escaped (`\x1b`, `\u202e`), never interpreted. A line feed stays: it is the text's own layout (a value
// from outside is put on one line by `oneLine` before it is laid out). The
// tool writes no tab, so a tab is escaped too (in a name it would pass for spaces). The tool's own
// terminal codes (colours, the status line's erase) are marked with `ownText`, whose marker carries a
// secret of this process, so no text from outside can pass for one.

/**
 * C0 controls but line feed, DEL and C1 controls, the bidirectional marks, embeddings,
 * overrides and isolates, the zero-width characters and the line and paragraph separators.
 */
const UNSAFE_SOURCE =
  '[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060\\u2066-\\u2069\\ufeff]';
const UNSAFE = new RegExp(UNSAFE_SOURCE, 'g');
const UNSAFE_TEST = new RegExp(UNSAFE_SOURCE);
/** A line feed: layout in a text, but never part of a name. */
const LAYOUT = /\n/;

const hex = (char: string, width: number) => char.charCodeAt(0).toString(16).padStart(width, '0');
const visible = (char: string) => (char.charCodeAt(0) < 0x100 ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`);

/** Whether a name holds a character `shownText` escapes (or a line feed). */
export function hasControls(text: string): boolean {
  return UNSAFE_TEST.test(text) || LAYOUT.test(text);
}

/** `text` with every character a terminal or an editor would interpret shown escaped. */
export function shownText(text: string): string {
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, visible) : text;
}

/**
 * A text from outside that a person reads on one line (a name the service holds, a value, a warning
 * that quotes them) with its line feeds shown escaped (`\x0a`), as `shownText` shows the other controls:
 * a line feed there is not the tool's layout, and would let a name pass for a line of its own (`Plan: 0
 * to delete`). Applied to the values before they are laid out, never to the laid-out text.
 */
export function oneLine(text: string): string {
  return text.includes('\n') ? text.replaceAll('\n', '\\x0a') : text;
}

/**
 * JSON text (JSON.stringify's, which escapes C0 controls already) with the other characters of the set
 * as `\uXXXX` escapes too: still valid JSON, and it parses to exactly the same values. They can only
 * stand inside strings in such a text, where an escape means the character itself.
 */
export function shownJson(json: string): string {
  return UNSAFE_TEST.test(json) ? json.replace(UNSAFE, (char) => `\\u${hex(char, 4)}`) : json;
}

/** Every string of a value (an object, a list) through `oneLine`: a plan before a renderer lays it out. */
export function oneLineValue<T>(value: T): T {
  return mapStrings(value, oneLine);
}

/** Every string of a value (an object, a list) through `shownText`; other values as they are. */
export function shownValue<T>(value: T): T {
  return mapStrings(value, shownText);
}

const NONCE = randomBytes(12).toString('hex');
const OPEN = `\ue000${NONCE}`;
const CLOSE = `\ue001${NONCE}`;
const OWN = new RegExp(`${OPEN}([^]*?)${CLOSE}`, 'g');

/** The tool's own terminal codes (a colour, an erase), kept as they are by `terminalText`. */
export function ownText(codes: string): string {
  return `${OPEN}${codes}${CLOSE}`;
}

const JSON_OPEN = `\ue002${NONCE}`;
const JSON_CLOSE = `\ue003${NONCE}`;
const JSON_DOCUMENT = new RegExp(`${JSON_OPEN}([^]*?)${JSON_CLOSE}`, 'g');

/**
 * A JSON document the tool writes whole to a stream that shows text (the JSON plan on stdout): marked,
 * as `ownText` marks codes, so that the stream masks it as JSON (Redactor.show), and it stays JSON.
 */
export function jsonDocument(json: string): string {
  return `${JSON_OPEN}${json}${JSON_CLOSE}`;
}

/** `text` with each `jsonDocument` in it through `json` (unmarked), and the rest through `other`. */
export function eachDocument(
  text: string,
  other: (text: string) => string,
  json: (json: string) => string,
): string {
  if (!text.includes(JSON_OPEN)) return other(text);
  let out = '';
  let last = 0;
  for (const match of text.matchAll(JSON_DOCUMENT)) {
    const before = text.slice(last, match.index);
    out += (before === '' ? '' : other(before)) + json(match[1] ?? '');
    last = match.index + match[0].length;
  }
  const after = text.slice(last);
  return out + (after === '' ? '' : other(after));
}

/** Text for a terminal: the tool's own codes (`ownText`) as they are, everything else `shownText`. */
export function terminalText(text: string): string {
  if (!text.includes(OPEN)) return shownText(text);
  let out = '';
  let last = 0;
  for (const match of text.matchAll(OWN)) {
    out += shownText(text.slice(last, match.index)) + (match[1] ?? '');
    last = match.index + match[0].length;
  }
  return out + shownText(text.slice(last));
}

/** `text` in an ANSI colour (SGR `code`), the codes marked as the tool's own. */
export function colored(code: number, text: string): string {
  return `${ownText(`\u001b[${code}m`)}${text}${ownText('\u001b[0m')}`;
}
