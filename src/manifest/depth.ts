// The `yaml` parser recurses once per level of nesting, so a file nested thousands of levels deep
// would end in "Maximum call stack size exceeded". A manifest needs four levels; this finds the first
// place that goes far past that before any parser sees the text: flow brackets nested more than
// MAX_FLOW_DEPTH deep, or block nesting whose indentation (spaces and `- ` markers) passes MAX_INDENT.

export const MAX_FLOW_DEPTH = 64;
export const MAX_INDENT = 256;

/** Line and column (1-based) where nesting first goes too deep, or undefined. */
export function tooDeep(text: string): { line: number; column: number } | undefined {
  let flow = 0;
  let line = 1;
  let lineStart = 0;
  let quote: string | undefined;
  let indent = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      quote = undefined;
      indent = true;
      continue;
    }
    if (indent && c !== ' ' && c !== '-') indent = false;
    if (indent && i - lineStart >= MAX_INDENT) return { line, column: i - lineStart + 1 };
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === lineStart || text[i - 1] === ' ')) {
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
