// Both readers recurse once per level of nesting (the fast reader's block collections, `yaml`'s
// parser), so a file nested thousands of levels deep would end in "Maximum call stack size exceeded".
// A manifest needs four levels; this finds the first place that goes far past that before either
// reader sees the text: flow brackets nested more than MAX_FLOW_DEPTH deep, or block nesting whose
// indentation (spaces, tabs and the `- `, `? `, `: ` indicators that nest on one line) passes
// MAX_INDENT. Quoted scalars are skipped only where YAML would start one (a quote after `it's` or
// `a "b` inside a flow list is plain text), so a quote cannot hide brackets that `yaml` would nest.
import type { Problem } from '../model/index.js';

export const MAX_FLOW_DEPTH = 64;
export const MAX_INDENT = 256;

export const TOO_DEEP = `the manifest is nested too deeply here (more than ${MAX_FLOW_DEPTH} levels of brackets or ${MAX_INDENT} columns of indentation); a manifest needs four levels`;

/** Characters that open a scalar: a quote right after one of them (or at a line's start) is a quote. */
const OPENS_SCALAR = new Set(['[', '{', ',', ':', '-', '?']);
const INDENTATION = new Set([' ', '\t', '-', '?', ':']);

/** Where a quoted scalar opening at `i` ends (the index of its closing quote), or the line's end. */
function quoteEnd(text: string, i: number): number {
  const quote = text[i];
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return j - 1;
    if (quote === '"' && c === '\\') j++;
    else if (c === quote && quote === "'" && text[j + 1] === "'") j++;
    else if (c === quote) return j;
  }
  return text.length;
}

/** The last character before `i` on its line that is not a space or tab, or '' at the line's start. */
function previousMark(text: string, lineStart: number, i: number): string {
  let j = i - 1;
  while (j >= lineStart && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < lineStart ? '' : (text[j] as string);
}

/** Line and column (1-based) where nesting first goes too deep, or undefined. */
export function tooDeep(text: string): { line: number; column: number } | undefined {
  let flow = 0;
  let line = 1;
  let lineStart = 0;
  let indent = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      indent = true;
      continue;
    }
    if (indent && !INDENTATION.has(c)) indent = false;
    if (indent && i - lineStart >= MAX_INDENT) return { line, column: i - lineStart + 1 };
    if (c === '"' || c === "'") {
      const mark = previousMark(text, lineStart, i);
      if (mark === '' || OPENS_SCALAR.has(mark)) i = quoteEnd(text, i);
    } else if (c === '#' && (i === lineStart || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      const end = text.indexOf('\n', i);
      i = (end === -1 ? text.length : end) - 1;
    } else if (c === '[' || c === '{') {
      if (++flow > MAX_FLOW_DEPTH) return { line, column: i - lineStart + 1 };
    } else if (c === ']' || c === '}') {
      flow = Math.max(0, flow - 1);
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
