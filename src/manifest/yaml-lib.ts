import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { MAX_LISTED_PROBLEMS, type Unlisted } from '../model/index.js';

// `yaml` reads what the fast reader (fast-yaml.ts) gives up on: a manifest with problems to locate, or
// YAML beyond plain mappings and lists. It is loaded on first use, through require() so that the bundle
// leaves it in node_modules: a valid plain manifest, every run's case, never reads or compiles it.
const load = createRequire(import.meta.url);
let lib: typeof Yaml | undefined;
/** The library, loaded on the first call (yaml-pieces.ts takes it so). */
export const yaml = (): typeof Yaml => {
  lib ??= load('yaml') as typeof Yaml;
  return lib;
};

export const isMap = (node: unknown): node is Yaml.YAMLMap => yaml().isMap(node);
export const isSeq = (node: unknown): node is Yaml.YAMLSeq => yaml().isSeq(node);
export const isScalar = (node: unknown): node is Yaml.Scalar => yaml().isScalar(node);
export const isAlias = (node: unknown): node is Yaml.Alias => yaml().isAlias(node);

/** What the document read with positions holds, and what turns positions into lines and columns. */
export interface Positioned {
  doc: Yaml.Document;
  lineCounter: Yaml.LineCounter;
  /** The library's errors and warnings beyond the first MAX_LISTED_PROBLEMS of each: counted, not kept. */
  unlisted: Unlisted;
}

type OnError = (source: unknown, code: string, message: string, warning?: boolean) => void;

/**
 * The document with every node's position, as `parseDocument` reads it, but keeping only the first
 * MAX_LISTED_PROBLEMS errors and warnings: the library makes an Error (with its stack, about 1 KB) of
 * each, so a typo repeated 100,000 times (`]` on every line) held 100,000 of them, 380 MB at its peak.
 * The rest are counted as they are found and dropped: the whole text is still read, for the count.
 */
export function parseWithPositions(text: string, lineCounter?: Yaml.LineCounter): Positioned {
  const { Composer, Parser, Document, LineCounter } = yaml();
  const lines = lineCounter ?? new LineCounter();
  const unlisted: Unlisted = { errors: 0, warnings: 0 };
  const kept = { errors: 0, warnings: 0 };
  const composer = new Composer({ prettyErrors: false, merge: true });
  // The library passes its errors through this callback, private in its types: replaced to count them.
  const inside = composer as unknown as { onError: OnError };
  const report = inside.onError;
  inside.onError = (source, code, message, warning) => {
    const kind = warning ? 'warnings' : 'errors';
    if (kept[kind] < MAX_LISTED_PROBLEMS) {
      kept[kind] += 1;
      report(source, code, message, warning);
    } else unlisted[kind] += 1;
  };
  // A stray token outside any node (a `]` on its own line) is an error the composer makes itself.
  function* tokens(): Generator<Yaml.CST.Token> {
    for (const token of new Parser(lines.addNewLine).parse(text)) {
      if (token.type !== 'error') yield token;
      else if (kept.errors < MAX_LISTED_PROBLEMS) {
        kept.errors += 1;
        yield token;
      } else unlisted.errors += 1;
    }
  }
  let doc: Yaml.Document.Parsed | undefined;
  for (const next of composer.compose(tokens(), true, text.length)) {
    if (doc === undefined) {
      doc = next;
      continue;
    }
    // As parseDocument says it; the rest of the text is not read (a manifest is one document).
    const at = next.range.slice(0, 2) as [number, number];
    const second = 'Source contains multiple documents; please use YAML.parseAllDocuments()';
    doc.errors.push(new (yaml().YAMLParseError)(at, 'MULTIPLE_DOCS', second));
    break;
  }
  return { doc: doc ?? new Document(), lineCounter: lines, unlisted: trimmed(doc, unlisted) };
}

/** `unlisted`, with the errors the composer pushed itself (not through its callback) past the first ones. */
function trimmed(doc: Yaml.Document | undefined, unlisted: Unlisted): Unlisted {
  const extra = doc ? doc.errors.splice(MAX_LISTED_PROBLEMS).length : 0;
  return { ...unlisted, errors: unlisted.errors + extra };
}
