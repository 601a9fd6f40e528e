// The full path's reading of a large manifest without its whole YAML tree in memory: the entries of
// `websites:` are read a piece at a time (yaml-pieces.ts), interpolated, searched for passwords and
// turned into data, and their nodes dropped; a problem's position is found later by reading its
// piece again. The result is what reading the text whole gives (index.ts reads it whole otherwise).
import type { Document, Node, YAMLSeq } from 'yaml';
import type { Problem, Unlisted } from '../model/index.js';
import { type Env, type InterpolationFailure, interpolateNode, type Substitution } from './interpolate.js';
import { Locator, type Tree } from './locate.js';
import { lineSpans, type PasswordSpan, treeSpans } from './password-syntax.js';
import { isMap, yaml } from './yaml-lib.js';
import { readInPieces } from './yaml-pieces.js';

export interface Read {
  data: unknown;
  failures: InterpolationFailure[];
  substituted: Substitution[];
  spans: PasswordSpan[];
  locator: Locator;
  /** Warnings found while reading (the whole reading's; none in pieces, where any makes it give up). */
  problems: Problem[];
  /** The library's problems beyond the first ones, counted while reading (the whole reading's). */
  unlisted?: Unlisted;
}

/** `tree`, answering `websites[i].domain` from the offsets recorded while reading. */
function withDomains(tree: Tree, domains: number[]): Tree {
  return {
    nodeAt(path) {
      const [list, index, key] = path;
      const at =
        path.length === 3 && list === 'websites' && key === 'domain' && typeof index === 'number'
          ? domains[index]
          : undefined;
      return at === undefined ? tree.nodeAt(path) : { range: [at, at, at] };
    },
  };
}

/** Interpolated data, its failures and password spans, for a text that reads the same in pieces. */
export function readPiecewise(text: string, file: string, env: Env): Read | undefined {
  const failures: InterpolationFailure[] = [];
  const substituted: Substitution[] = [];
  const spans: PasswordSpan[] = [];
  const entries: unknown[] = [];
  // Where each entry's domain starts: every website's location is asked for, in order, by
  // resolution; this answers without reading each piece again.
  const domains: number[] = [];
  const visit = (piece: Document, first: number): boolean => {
    for (const [k, item] of (piece.contents as YAMLSeq).items.entries()) {
      const base = ['websites', first + k];
      const domain = isMap(item) ? (item.get('domain', true) as Node | undefined) : undefined;
      if (domain?.range) domains[first + k] = domain.range[0];
      interpolateNode(item, { base, env, substituted, failures });
      treeSpans(item, base, text, spans);
    }
    // A conversion that fails (a bad merge) is reported, with its position, by the whole reading.
    try {
      for (const entry of piece.toJS() as unknown[]) entries.push(entry);
      return true;
    } catch {
      return false;
    }
  };
  const read = readInPieces(yaml(), text, visit);
  if (!read) return undefined;
  const { frame, lineCounter, tree } = read;
  interpolateNode(frame.contents, { base: [], env, substituted, failures });
  treeSpans(frame.contents, [], text, spans);
  lineSpans(text, spans);
  let data: Record<string, unknown>;
  try {
    data = frame.toJS() as Record<string, unknown>;
  } catch {
    return undefined;
  }
  data.websites = entries;
  return {
    data,
    failures,
    substituted,
    spans,
    locator: new Locator(withDomains(tree, domains), lineCounter, text, file),
    problems: [],
  };
}
