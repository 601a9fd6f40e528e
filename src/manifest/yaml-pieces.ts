// The `yaml` library keeps the whole syntax tree (CST) of a document while it builds the Document, about
// 45 bytes per byte of text beside the Document's own 20: reading a large manifest with positions peaked
// at hundreds of megabytes, enough for a daemon under a container's memory limit to be killed for one
// typo. So the `websites:` list is read one entry at a time, each entry's tree dropped once its nodes
// are built, and the nodes are put together into the one Document the whole text would have given,
// with the same offsets and line starts. Anything that could read differently in pieces (an error or
// warning anywhere, an anchor or alias, a list that is not where the scan says) returns undefined, and
// the caller reads the text whole.
import type * as Yaml from 'yaml';

/** `websites:` at the start of a line, nothing but a comment after it. */
const WEBSITES_LINE = /^websites:[ \t]*(?:#[^\n]*)?\r?$/m;

interface Entries {
  /** Where the `websites:` key starts. */
  key: number;
  /** Where each entry's first line starts; the last entry ends at `end`. */
  starts: number[];
  end: number;
}

function lineIndent(text: string, start: number): number {
  let at = start;
  while (text[at] === ' ') at++;
  return at - start;
}

/** Empty, spaces only, or a comment. */
function blankLine(text: string, start: number, indent: number): boolean {
  const c = text[start + indent];
  return c === undefined || c === '\n' || c === '\r' || c === '#';
}

/** A `- ` (or a lone `-`) at `at`. */
function itemAt(text: string, at: number): boolean {
  const next = text[at + 1];
  return text[at] === '-' && (next === ' ' || next === '\n' || next === '\r' || next === undefined);
}

/** Where the block list under `websites:` has its entries, by their lines' indentation. */
function findEntries(text: string): Entries | undefined {
  const match = WEBSITES_LINE.exec(text);
  if (!match) return undefined;
  const starts: number[] = [];
  let column = -1;
  let line = text.indexOf('\n', match.index) + 1;
  while (line > 0 && line < text.length) {
    const indent = lineIndent(text, line);
    if (!blankLine(text, line, indent)) {
      const item = itemAt(text, line + indent);
      if (column === -1 && item) column = indent;
      if (indent < column || column === -1 || (indent === column && !item)) break;
      if (indent === column) starts.push(line);
    }
    line = text.indexOf('\n', line) + 1;
  }
  const end = line > 0 ? line : text.length;
  return starts.length === 0 ? undefined : { key: match.index, starts, end };
}

/** Whether any node of the tree has an anchor or is an alias: those resolve across the whole text. */
function referencesAnything(lib: typeof Yaml, node: unknown): boolean {
  if (lib.isAlias(node)) return true;
  if ((node as { anchor?: string } | null)?.anchor) return true;
  if (lib.isMap(node))
    return node.items.some((p) => referencesAnything(lib, p.key) || referencesAnything(lib, p.value));
  if (lib.isSeq(node)) return node.items.some((item) => referencesAnything(lib, item));
  return false;
}

/** Entries are read in pieces of about this many characters: each piece's tree is a few megabytes. */
const PIECE = 32 * 1024;

/** Where each piece starts: at an entry's start, once the piece before is PIECE long. */
function pieceStarts(starts: readonly number[]): number[] {
  const pieces: number[] = [];
  for (const start of starts) {
    const last = pieces[pieces.length - 1];
    if (last === undefined || start - last >= PIECE) pieces.push(start);
  }
  return pieces;
}

/** A piece of entries, read at its own offsets: the list of its `count` items, or undefined. */
function readPiece(lib: typeof Yaml, text: string, range: [number, number, number], lineStarts: number[]) {
  const [from, to, count] = range;
  const parser = new lib.Parser((offset) => lineStarts.push(offset));
  parser.offset = from;
  const composer = new lib.Composer({ prettyErrors: false, merge: true });
  const docs = [...composer.compose(parser.parse(text.slice(from, to)), true, to)];
  const doc = docs[0];
  if (docs.length !== 1 || !doc || doc.errors.length + doc.warnings.length > 0) return undefined;
  const list = doc.contents;
  if (!lib.isSeq(list) || list.items.length !== count || referencesAnything(lib, list)) return undefined;
  return list;
}

/** The `websites` pair of the frame (the text with the entries blanked), if it reads as expected. */
function websitesPair(lib: typeof Yaml, frame: Yaml.Document, key: number) {
  if (frame.errors.length + frame.warnings.length > 0 || referencesAnything(lib, frame.contents))
    return undefined;
  const root = frame.contents;
  if (!lib.isMap(root)) return undefined;
  const pair = root.items.find((p) => lib.isScalar(p.key) && p.key.range?.[0] === key);
  if (!pair || !lib.isScalar(pair.key) || pair.key.value !== 'websites') return undefined;
  const value = pair.value;
  return value === null || (lib.isScalar(value) && value.value === null) ? pair : undefined;
}

/** The Document and line counter the whole text would give, read an entry at a time; or undefined. */
export function parseInPieces(
  lib: typeof Yaml,
  text: string,
): { doc: Yaml.Document; lineCounter: Yaml.LineCounter } | undefined {
  const entries = findEntries(text);
  if (!entries) return undefined;
  const { starts, end } = entries;
  const first = starts[0] as number;
  // Blanked, not cut out: every offset of the frame is the text's own.
  const frameText = text.slice(0, first) + text.slice(first, end).replace(/[^\n]/g, ' ') + text.slice(end);
  const frameCounter = new lib.LineCounter();
  const frame = lib.parseDocument(frameText, { lineCounter: frameCounter, prettyErrors: false, merge: true });
  const pair = websitesPair(lib, frame, entries.key);
  if (!pair) return undefined;
  const inside: number[] = [];
  const items: unknown[] = [];
  const ranges: Array<[number, number, number]> = [];
  const pieces = pieceStarts(starts);
  let entry = 0;
  for (const [i, from] of pieces.entries()) {
    const to = pieces[i + 1] ?? end;
    let inPiece = 0;
    while (entry < starts.length && (starts[entry] as number) < to) {
      entry++;
      inPiece++;
    }
    const list = readPiece(lib, text, [from, to, inPiece], inside);
    if (!list?.range) return undefined;
    items.push(...list.items);
    ranges.push(list.range);
  }
  const seq = new lib.YAMLSeq(frame.schema);
  seq.items = items;
  const [head] = ranges;
  const tail = ranges[ranges.length - 1];
  if (head && tail) seq.range = [head[0], tail[1], tail[2]];
  pair.value = seq;
  const lineCounter = new lib.LineCounter();
  const ownLines = (offset: number) => offset <= first || offset > end;
  lineCounter.lineStarts = frameCounter.lineStarts
    .filter((offset) => offset <= first)
    .concat(
      inside.filter((offset) => !ownLines(offset)),
      frameCounter.lineStarts.filter((offset) => offset > end),
    );
  return { doc: frame, lineCounter };
}
