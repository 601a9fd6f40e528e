import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

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

/** The document with every node's position, and what turns positions into lines and columns. */
export function parseWithPositions(text: string): { doc: Yaml.Document; lineCounter: Yaml.LineCounter } {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  return { doc: parseDocument(text, { lineCounter, prettyErrors: false, merge: true }), lineCounter };
}
