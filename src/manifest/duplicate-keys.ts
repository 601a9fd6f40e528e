// `yaml` reports a key written twice in one mapping as "Map keys must be unique", without the key or
// where it was first written. The document keeps every pair, duplicates included, so one walk finds
// them all and the problem can name the field and the other line, as every manifest problem does.
import type { Document, Node, Pair } from 'yaml';
import { formatPath, type Locator, type Path } from './locate.js';
import { isMap, isScalar, isSeq } from './yaml-lib.js';

export interface DuplicateKey {
  field: string;
  message: string;
}

const keyText = (pair: Pair): string => String(isScalar(pair.key) ? pair.key.value : pair.key);
const keyStart = (pair: Pair): number | undefined => (pair.key as Node | null)?.range?.[0];

/**
 * Every repeated key of the document, by the offset where its key starts (where `yaml` reports it).
 * One walk, whatever the number of duplicates: a generated manifest may repeat a key in every entry.
 */
export function duplicateKeys(doc: Document, locator: Locator): Map<number, DuplicateKey> {
  const found = new Map<number, DuplicateKey>();
  const walk = (node: unknown, path: Path): void => {
    if (isMap(node)) {
      const firsts = new Map<string, Pair>();
      for (const pair of node.items) {
        const name = keyText(pair);
        const first = firsts.get(name);
        const at = keyStart(pair);
        const firstAt = first && keyStart(first);
        if (firstAt === undefined) firsts.set(name, pair);
        else if (at !== undefined) {
          const { line } = locator.at(firstAt);
          found.set(at, {
            field: formatPath([...path, name]),
            message: `duplicate key ${JSON.stringify(name)}: already set at line ${line}; a key may appear once in a mapping (remove one of them)`,
          });
        }
        walk(pair.value, [...path, name]);
      }
    } else if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) walk(item, [...path, index]);
    }
  };
  walk(doc.contents, []);
  return found;
}
