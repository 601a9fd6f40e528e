// Both readers recurse once per level of nesting (the fast reader's block collections, `yaml`'s
// parser), so a file nested thousands of levels deep would end in "Maximum call stack size exceeded".
// A manifest needs four levels; this finds the first place that goes far past that before either
// reader sees the text: flow brackets nested more than MAX_FLOW_DEPTH deep, or block nesting whose
// indentation (spaces, tabs and the `- `, `? `, `: ` indicators that nest on one line) passes
// MAX_INDENT. Quoted scalars are skipped only where YAML would start one (a quote after `it's` or
// `a "b` inside a flow list is plain text; one after an anchor or a tag does start one), so a quote
// cannot hide brackets that `yaml` would nest; one that goes on past its line is skipped only over the
// lines indented enough to go on with it, as YAML reads it.
import type { Problem } from '../model/index.js';

export const MAX_FLOW_DEPTH = 64;
export const MAX_INDENT = 256;

export const TOO_DEEP = `the manifest is nested too deeply here (more than ${MAX_FLOW_DEPTH} levels of brackets or ${MAX_INDENT} columns of indentation); a manifest needs four levels`;

/** Characters that open a scalar: a quote right after one of them (or at a line's start) is a quote. */
const OPENS_SCALAR = new Set(['[', '{', ',', ':', '-', '?']);
const INDENTATION = new Set([' ', '\t', '-', '?', ':']);

/**
 * Where the text of a quoted scalar from `from` ends on its line: at its closing quote (`closed`), or
 * at the line's end (the newline's index; the text's length at its end), where it goes on.
 */
function quoteEnd(text: string, from: number, quote: string): { at: number; closed: boolean } {
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return { at: j, closed: false };
    if (quote === '"' && c === '\\' && text[j + 1] !== '\n') j++;
    else if (c === quote && quote === "'" && text[j + 1] === "'") j++;
    else if (c === quote) return { at: j, closed: true };
  }
  return { at: text.length, closed: false };
}

/** The column of a line's content: past its indentation and the `- `, `? `, `: ` that nest on it. */
function contentColumn(text: string, lineStart: number): number {
  let at = lineStart;
  while (INDENTATION.has(text[at] as string)) at++;
  return at - lineStart;
}

/** The last character before `i` on its line that is not a space or tab, or '' at the line's start. */
function previousMark(text: string, lineStart: number, i: number): string {
  let j = i - 1;
  while (j >= lineStart && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < lineStart ? '' : (text[j] as string);
}

/**
 * Whether a quote at `i` opens a quoted scalar: at a line's start, after a character that opens one
 * (OPENS_SCALAR), or after an anchor or a tag (`&a "x"`, `!!str 'x'`) that stands there.
 */
function opensQuoted(text: string, lineStart: number, i: number): boolean {
  let at = i;
  for (;;) {
    const mark = previousMark(text, lineStart, at);
    if (mark === '' || OPENS_SCALAR.has(mark)) return true;
    let end = at - 1;
    while (text[end] === ' ' || text[end] === '\t') end--;
    // A property is separated from what it marks.
    if (end === at - 1) return false;
    let start = end;
    while (start > lineStart && text[start - 1] !== ' ' && text[start - 1] !== '\t') start--;
    if (text[start] !== '&' && text[start] !== '!') return false;
    at = start;
  }
}

/** Characters that cannot start a plain scalar outside brackets (spaces, indicators, quotes). */
const NOT_PLAIN = new Set([
  ' ',
  '\t',
  '-',
  '?',
  ':',
  '[',
  ']',
  '{',
  '}',
  ',',
  '#',
  '"',
  "'",
  '|',
  '>',
  '&',
  '!',
  '*',
  '%',
  '@',
  '`',
]);

/** Where a plain scalar outside brackets stops: at `: ` (a key's end), ` #` (a comment) or the line's end. */
function plainEnd(text: string, i: number): number {
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return j;
    const next = text[j + 1];
    if (c === ':' && (next === ' ' || next === '\t' || next === '\n' || next === undefined)) return j;
    if (c === '#' && (text[j - 1] === ' ' || text[j - 1] === '\t')) return j;
  }
  return text.length;
}

/** The index of the newline ending the line from `lineStart`, when the line belongs to a block scalar. */
function blockLineEnd(text: string, lineStart: number, parentIndent: number): number | undefined {
  let at = lineStart;
  while (text[at] === ' ') at++;
  const end = text.indexOf('\n', lineStart);
  const blank = at === text.length || text[at] === '\n' || text[at] === '\r';
  return blank || at - lineStart > parentIndent ? (end === -1 ? text.length : end) : undefined;
}

function leadingSpaces(text: string, lineStart: number): number {
  let at = lineStart;
  while (text[at] === ' ') at++;
  return at - lineStart;
}

/** Scans the text for nesting; brackets count only where YAML reads them as brackets. */
class DepthScan {
  flow = 0;
  line = 1;
  lineStart = 0;
  indent = true;
  /** The indentation of the line holding a `|` or `>` header, while its block scalar lasts; else -1. */
  block = -1;
  /**
   * A quoted scalar that goes on past its line: its quote, and the indentation a line needs to go on
   * with it (YAML ends it, in error, at a line less indented: brackets there are brackets again).
   */
  quoted: { quote: string; indent: number } | undefined;

  constructor(readonly text: string) {}

  /** The index to continue from after a newline at `i` (past the lines of a block scalar). */
  newline(i: number): number {
    this.line++;
    this.lineStart = i + 1;
    this.indent = true;
    if (this.quoted) return this.#inQuoted(i);
    if (this.block < 0) return i;
    const end = blockLineEnd(this.text, this.lineStart, this.block);
    if (end !== undefined) return end - 1;
    this.block = -1;
    return i;
  }

  /** After a quote that opens a scalar at `i`: the index to continue from (its closing quote, or its line's end). */
  quote(i: number): number {
    const { text } = this;
    const quote = text[i] as string;
    const end = quoteEnd(text, i + 1, quote);
    if (end.closed) return end.at;
    this.quoted = { quote, indent: contentColumn(text, this.lineStart) + 1 };
    return end.at - 1;
  }

  /** At the start of a line while a quoted scalar goes on: the index to continue from. */
  #inQuoted(i: number): number {
    const { text, quoted } = this;
    if (!quoted) return i;
    const spaces = leadingSpaces(text, this.lineStart);
    const at = this.lineStart + spaces;
    const blank = at === text.length || text[at] === '\n' || text[at] === '\r';
    if (!blank && spaces < quoted.indent) {
      this.quoted = undefined;
      return i;
    }
    const end = quoteEnd(text, at, quoted.quote);
    if (!end.closed) return end.at - 1;
    this.quoted = undefined;
    this.indent = false;
    return end.at;
  }

  /** The index to continue from after a character that is not a bracket, quote or comment, outside brackets. */
  outsideFlow(i: number, c: string): number {
    const { text } = this;
    const mark = previousMark(text, this.lineStart, i);
    const valueStart = mark === '' || mark === ':' || mark === '-' || mark === '?';
    if ((c === '|' || c === '>') && valueStart) {
      this.block = leadingSpaces(text, this.lineStart);
      const end = text.indexOf('\n', i);
      return (end === -1 ? text.length : end) - 1;
    }
    if (c === '&' || c === '!' || c === '*') {
      const end = text.slice(i).search(/[ \t\n]/);
      return end === -1 ? text.length : i + end - 1;
    }
    return NOT_PLAIN.has(c) ? i : plainEnd(text, i) - 1;
  }
}

/** Line and column (1-based) where nesting first goes too deep, or undefined. */
export function tooDeep(text: string): { line: number; column: number } | undefined {
  const scan = new DepthScan(text);
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      i = scan.newline(i);
      continue;
    }
    if (scan.indent && !INDENTATION.has(c)) scan.indent = false;
    if (scan.indent && i - scan.lineStart >= MAX_INDENT)
      return { line: scan.line, column: i - scan.lineStart + 1 };
    if (c === '"' || c === "'") {
      if (opensQuoted(text, scan.lineStart, i)) i = scan.quote(i);
    } else if (c === '#' && (i === scan.lineStart || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      const end = text.indexOf('\n', i);
      i = (end === -1 ? text.length : end) - 1;
    } else if (c === '[' || c === '{') {
      if (++scan.flow > MAX_FLOW_DEPTH) return { line: scan.line, column: i - scan.lineStart + 1 };
    } else if (c === ']' || c === '}') {
      scan.flow = Math.max(0, scan.flow - 1);
    } else if (scan.flow === 0 && !scan.indent) {
      i = scan.outsideFlow(i, c);
    }
  }
  return undefined;
}

/** The located error for a text nested too deeply, or undefined. */
export function depthProblem(text: string, file: string): Problem | undefined {
  const deep = tooDeep(text);
  return deep && { severity: 'error', file, ...deep, field: '', message: TOO_DEEP };
}

/** Whether an error is a stack overflow (a nesting this check did not foresee). */
export function isStackOverflow(message: string): boolean {
  return /Maximum call stack size exceeded/i.test(message);
}
