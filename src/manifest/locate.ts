// Turns a path in the manifest (as zod and our checks report it) into the line and column a user
// can jump to. When the path points at something absent (a missing key), the nearest enclosing
// node that exists is used, so every problem still has a useful location.
import type { Document, LineCounter, Node, Scalar } from 'yaml';
import type { Problem, SourceLocation } from '../model/index.js';
import { isMap, isScalar } from './yaml-lib.js';

export type Path = ReadonlyArray<string | number>;

/** A problem before it has a file position. */
export interface Finding {
  severity: Problem['severity'];
  /** The field the problem is about; it is also where the problem is located unless `at` is given. */
  path: Path;
  message: string;
  /** Locate at another node than `path` (e.g. a missing password is shown at the privacy line). */
  at?: Path;
  /** Locate at the key of the last path segment rather than its value (unknown keys). */
  onKey?: boolean;
}

/** `['websites', 2, 'exclude_ips', 0]` → `websites[2].exclude_ips[0]`. */
export function formatPath(path: Path): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`),
    '',
  );
}

/** What a Locator reads nodes from: a whole Document, or one read in pieces (yaml-pieces.ts). */
export interface Tree {
  /** The node at `path` (the root for []), or undefined when there is none. */
  nodeAt(path: Path): unknown;
}

/** A Document as a Tree. */
export function documentTree(doc: Document): Tree {
  return { nodeAt: (path) => (path.length === 0 ? doc.contents : doc.getIn(path, true)) };
}

export class Locator {
  constructor(
    private readonly tree: Tree,
    private readonly lineCounter: LineCounter,
    readonly text: string,
    readonly file: string,
  ) {}

  toProblem(finding: Finding): Problem {
    const location = finding.onKey ? this.locateKey(finding.path) : this.locate(finding.at ?? finding.path);
    return {
      severity: finding.severity,
      file: this.file,
      line: location.line,
      column: location.column,
      field: formatPath(finding.path),
      message: finding.message,
    };
  }

  at(offset: number): SourceLocation {
    const { line, col } = this.lineCounter.linePos(offset);
    return { file: this.file, line, column: col };
  }

  locate(path: Path): SourceLocation {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = this.nodeAt(path.slice(0, depth));
      if (node?.range == null) continue;
      const rest = path.slice(depth);
      if (isScalar(node) && rest.length === 1 && typeof rest[0] === 'number') {
        return this.locateLineOf(node, rest[0]) ?? this.at(node.range[0]);
      }
      return this.at(node.range[0]);
    }
    return { file: this.file, line: 1, column: 1 };
  }

  private locateKey(path: Path): SourceLocation {
    const parent = this.nodeAt(path.slice(0, -1));
    const name = String(path[path.length - 1]);
    if (isMap(parent)) {
      const pair = parent.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === name);
      const range = (pair?.key as Node | undefined)?.range;
      if (range) return this.at(range[0]);
    }
    return this.locate(path.slice(0, -1));
  }

  private nodeAt(path: Path): Node | undefined {
    const node = this.tree.nodeAt(path);
    return node != null && typeof node === 'object' && 'range' in node ? (node as Node) : undefined;
  }

  /**
   * Entry `index` of a one-per-line string. Only a literal block (`|`) keeps one source line per
   * value line; for other styles the caller falls back to the start of the value.
   */
  private locateLineOf(node: Scalar, index: number): SourceLocation | undefined {
    if (node.type !== 'BLOCK_LITERAL' || typeof node.value !== 'string' || !node.range) return undefined;
    const entry = node.value.split('\n')[index]?.trim();
    const line = this.at(node.range[0]).line + 1 + index;
    const start = this.lineCounter.lineStarts[line - 1];
    if (!entry || start === undefined) return undefined;
    const end = this.lineCounter.lineStarts[line] ?? this.text.length;
    const column = this.text.slice(start, end).indexOf(entry);
    return column === -1 ? undefined : { file: this.file, line, column: column + 1 };
  }
}
