// The `yaml` library keeps the whole syntax tree (CST) of a document while it builds the Document, about
// 45 bytes per byte of text beside the Document's own 20: reading a large manifest with positions peaked
// at hundreds of megabytes (580 MB for 100,000 websites), enough for a daemon under a container's memory
// limit to be killed for one typo. So the `websites:` list is read a small piece (a few entries) at a
// time: each piece is handed to the caller (read-pieces.ts turns it into data) and dropped, and a node is
// found again, by reading its piece again, only when a problem is located there. Offsets and line starts
// are the whole text's. Anything that could read differently in pieces (an error or warning anywhere,
// an anchor or alias, a list that is not where the scan says) returns undefined, and the caller reads
// the text whole.
import type * as Yaml from 'yaml';
import type { Tree } from './locate.js';
import { parseWithPositions } from './yaml-lib.js';

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

/**
 * Entries are read in pieces of about this many characters: small enough that a piece's tree (about
 * 100 KB) dies in V8's young generation (2 × 2 MB under the CLI's shebang) instead of being promoted.
 */
const PIECE = 2 * 1024;

/** Where each piece starts: at an entry's start, once the piece before is PIECE long. */
function pieceStarts(starts: readonly number[]): number[] {
  const pieces: number[] = [];
  for (const start of starts) {
    const last = pieces[pieces.length - 1];
    if (last === undefined || start - last >= PIECE) pieces.push(start);
  }
  return pieces;
}

/** Where a piece is in the text, and which entries it holds. */
interface Piece {
  from: number;
  to: number;
  first: number;
  count: number;
}

/** A piece of entries, read at its own offsets: its Document (a list of `count` items), or undefined. */
function readPiece(lib: typeof Yaml, text: string, piece: Piece, lineStarts?: number[]) {
  const { from, to, count } = piece;
  const parser = new lib.Parser(lineStarts && ((offset) => lineStarts.push(offset)));
  parser.offset = from;
  const composer = new lib.Composer({ prettyErrors: false, merge: true });
  const docs = [...composer.compose(parser.parse(text.slice(from, to)), true, to)];
  const doc = docs[0];
  if (docs.length !== 1 || !doc || doc.errors.length + doc.warnings.length > 0) return undefined;
  const list = doc.contents;
  if (!lib.isSeq(list) || list.items.length !== count || referencesAnything(lib, list)) return undefined;
  return doc as Yaml.Document.Parsed & { contents: Yaml.YAMLSeq };
}

/** The pieces of the entries: about PIECE characters each, cut at an entry's start. */
function cutPieces(starts: readonly number[], end: number): Piece[] {
  const cuts = pieceStarts(starts);
  const pieces: Piece[] = [];
  let entry = 0;
  for (const [i, from] of cuts.entries()) {
    const to = cuts[i + 1] ?? end;
    const first = entry;
    while (entry < starts.length && (starts[entry] as number) < to) entry++;
    pieces.push({ from, to, first, count: entry - first });
  }
  return pieces;
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

/** What reading in pieces gives: the frame, the lines, and the tree of the whole text. */
export interface Piecewise {
  /** The text with its entries made one comment; its `websites` list holds no items (they are in `tree`). */
  frame: Yaml.Document;
  lineCounter: Yaml.LineCounter;
  /** The frame's nodes, and an entry's, read again (a piece at a time) when asked for. */
  tree: Tree;
}

/**
 * Told each piece as it is read: the entries' Document (a list) and the index of its first entry.
 * The piece's nodes are dropped after; false gives up (the caller then reads the text whole).
 */
export type PieceVisitor = (piece: Yaml.Document, first: number) => boolean;

/** The text read a piece of its `websites:` list at a time, or undefined where that could differ. */
export function readInPieces(lib: typeof Yaml, text: string, visit: PieceVisitor): Piecewise | undefined {
  const entries = findEntries(text);
  if (!entries) return undefined;
  const { starts, end } = entries;
  const first = starts[0] as number;
  // The entries become one comment line of the same length: every offset of the frame is the text's own.
  const newline = text[end - 1] === '\n' ? '\n' : '';
  const blank = `#${' '.repeat(end - first - 1 - newline.length)}${newline}`;
  const frameText = text.slice(0, first) + blank + text.slice(end);
  const frameCounter = new lib.LineCounter();
  // Capped like the whole reading: a frame of 100,000 stray `]` lines is refused, not held in memory.
  const { doc: frame } = parseWithPositions(frameText, frameCounter);
  const pair = websitesPair(lib, frame, entries.key);
  if (!pair) return undefined;
  const inside: number[] = [];
  const pieces = cutPieces(starts, end);
  const ranges: Array<[number, number, number]> = [];
  for (const piece of pieces) {
    const doc = readPiece(lib, text, piece, inside);
    if (!doc?.contents.range || !visit(doc, piece.first)) return undefined;
    ranges.push(doc.contents.range);
  }
  const seq = new lib.YAMLSeq(frame.schema);
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
  return { frame, lineCounter, tree: piecewiseTree(lib, text, frame, pieces) };
}

/** Nodes by path: an entry's from its piece, read again (the last one kept: lookups go in order). */
function piecewiseTree(lib: typeof Yaml, text: string, frame: Yaml.Document, pieces: Piece[]): Tree {
  const last = pieces[pieces.length - 1];
  const total = last ? last.first + last.count : 0;
  let cached: { piece: Piece; list: Yaml.YAMLSeq } | undefined;
  const entry = (index: number): unknown => {
    let piece = cached?.piece;
    if (!piece || index < piece.first || index >= piece.first + piece.count) {
      piece = pieces.find((p) => index >= p.first && index < p.first + p.count);
      const doc = piece && readPiece(lib, text, piece);
      cached = piece && doc ? { piece, list: doc.contents } : undefined;
    }
    return cached?.list.items[index - (cached?.piece.first ?? 0)];
  };
  return {
    nodeAt(path) {
      if (path.length === 0) return frame.contents;
      if (path[0] !== 'websites' || path.length < 2) return frame.getIn(path, true);
      const index = typeof path[1] === 'string' && path[1] !== '' ? Number(path[1]) : path[1];
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= total)
        return undefined;
      const node = entry(index);
      if (path.length === 2) return node;
      return lib.isCollection(node) ? node.getIn(path.slice(2), true) : undefined;
    },
  };
}
