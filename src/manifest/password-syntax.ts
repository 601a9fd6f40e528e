// A password that YAML cannot read as written (`password: *Secr3t` is an alias, `!Secr3t` a tag,
// `|Secr3t` a block scalar header) fails before it is a value, so the Redactor cannot know it, and the
// `yaml` library's messages quote the source text they stumbled on. So a problem located inside the
// value of a `password:` key never takes the library's text: it says what YAML read there and where
// the password is (the line and column its value starts at), never the value.
import type { Document, Node } from 'yaml';
import { formatPath, type Path } from './locate.js';
import { isAlias, isMap, isScalar, isSeq } from './yaml-lib.js';

/** Where the value of one `password:` key is in the source, as offsets. */
export interface PasswordSpan {
  /** `websites[0].password`; just `password` for a line the YAML tree does not hold as a key. */
  field: string;
  /** The value's first character (or where it would be, after the colon and spaces). */
  start: number;
  /** Past the value and the rest of its first line. */
  end: number;
}

const READ_AS: Record<string, string> = {
  '*': 'an alias',
  '&': 'an anchor',
  '!': 'a tag',
  '|': 'a block scalar header',
  '>': 'a block scalar header',
  '@': 'a reserved character',
  '`': 'a reserved character',
  '%': 'a directive',
  '[': 'a list',
  '{': 'a mapping',
  '-': 'a list item',
  '?': 'a mapping key',
  '#': 'a comment',
};
const QUOTE_IT = "put the password in single quotes, writing a ' inside as ''";
/** A `password:` key at the start of a line (after indentation and list dashes), quoted or not. */
const PASSWORD_LINE = /^[ \t]*(?:-[ \t]+)*(["']?)password\1[ \t]*:(?=[ \t]|$)/gm;

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** The first offset from `from` that is not a space or tab. */
function skipBlanks(text: string, from: number): number {
  let at = from;
  while (text[at] === ' ' || text[at] === '\t') at++;
  return at;
}

function spanAfterKey(text: string, keyEnd: number, field: string, value: unknown): PasswordSpan {
  const colon = text.indexOf(':', keyEnd);
  const start = skipBlanks(text, colon === -1 ? keyEnd : colon + 1);
  const valueEnd = (value as Node | null)?.range?.[2] ?? 0;
  return { field, start, end: Math.max(valueEnd, lineEnd(text, start)) };
}

/** Every `password:` value of the text: those of the YAML tree, and any other line that starts so. */
export function passwordSpans(doc: Document, text: string): PasswordSpan[] {
  const spans: PasswordSpan[] = [];
  treeSpans(doc.contents, [], text, spans);
  lineSpans(text, spans);
  return spans;
}

/** The `password:` values under `root` (at `base` in the manifest), added to `spans`. */
export function treeSpans(root: unknown, base: Path, text: string, spans: PasswordSpan[]): void {
  const walk = (node: unknown, path: Path): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        const keyEnd = (pair.key as Node | null)?.range?.[1];
        if (key === 'password' && keyEnd !== undefined) {
          spans.push(spanAfterKey(text, keyEnd, formatPath([...path, key]), pair.value));
        } else walk(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) walk(item, [...path, index]);
    }
  };
  walk(root, base);
}

/** Lines that start with a `password:` key the tree does not hold (YAML read them otherwise). */
export function lineSpans(text: string, spans: PasswordSpan[]): void {
  const known = new Set(spans.map((span) => span.start));
  for (const match of text.matchAll(PASSWORD_LINE)) {
    const span = spanAfterKey(text, match.index + match[0].length - 1, 'password', null);
    if (!known.has(span.start)) spans.push(span);
  }
}

/** The span that holds `offset`, if any. */
export function spanAt(spans: readonly PasswordSpan[], offset: number): PasswordSpan | undefined {
  return spans.find((span) => offset >= span.start && offset <= span.end);
}

/** What is wrong with the password at `span`, from its first character only. */
export function passwordMessage(text: string, span: PasswordSpan): string {
  const first = text[span.start] ?? '';
  const readAs = READ_AS[first];
  if (readAs) {
    return `an unquoted value starting with '${first}' is read by YAML as ${readAs}, not as text; ${QUOTE_IT}`;
  }
  if (first === '"' || first === "'") {
    return `YAML cannot read this quoted value: it must end with the same quote, and nothing but a comment may follow; in "…" a backslash starts an escape, so ${QUOTE_IT} (the value is not shown)`;
  }
  return `YAML cannot read this value as written; ${QUOTE_IT} (the value is not shown)`;
}

/** Whether the password at `span` is written starting with a character YAML reads as syntax. */
export function startsWithIndicator(text: string, span: PasswordSpan): boolean {
  return READ_AS[text[span.start] ?? ''] !== undefined;
}

/** A merge key as the YAML library identifies one: `<<`, which it reads into a symbol of that name. */
function isMergeKey(node: unknown): boolean {
  if (!isScalar(node)) return false;
  const { value } = node;
  return value === '<<' || (typeof value === 'symbol' && value.description === '<<');
}

/** The first node, keys included, in document order that `test` accepts. */
function firstNode(doc: Document, test: (node: unknown) => boolean): Node | undefined {
  let found: Node | undefined;
  const walk = (node: unknown): void => {
    if (found) return;
    if (test(node)) found = node as Node;
    else if (isMap(node)) {
      for (const pair of node.items) {
        walk(pair.key);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(doc.contents);
  return found;
}

/** The first alias whose anchor is not set before it, and where it starts. */
export function unresolvedAlias(doc: Document): { name: string; offset: number } | undefined {
  const alias = firstNode(doc, (node) => isAlias(node) && !node.resolve(doc));
  return isAlias(alias) ? { name: alias.source, offset: alias.range?.[0] ?? 0 } : undefined;
}

/**
 * Where a conversion the YAML library refused starts: a merge key (`<<`) whose source is not a map,
 * or the first alias of a document whose aliases expand too far (an alias bomb).
 */
export function conversionSite(doc: Document, message: string): number | undefined {
  const site = /merge/i.test(message)
    ? firstNode(doc, isMergeKey)
    : /alias/i.test(message)
      ? firstNode(doc, isAlias)
      : undefined;
  return site?.range?.[0];
}
