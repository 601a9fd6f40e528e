// `yaml` reports a key written twice in one mapping as "Map keys must be unique", without the key or
// where it was first written. This finds both in the document (which keeps every pair, duplicates
// included) so that the problem names the field and the other line, as every manifest problem does.
import type { Document, Node, Pair } from 'yaml';
import { formatPath, type Locator, type Path } from './locate.js';
import { isMap, isScalar, isSeq } from './yaml-lib.js';

export interface DuplicateKey {
  field: string;
  message: string;
}

const keyText = (pair: Pair): string => String(isScalar(pair.key) ? pair.key.value : pair.key);
const keyStart = (pair: Pair): number | undefined => (pair.key as Node | null)?.range?.[0];

/** The pair whose key starts at `offset`, with the path of its mapping and its earlier twin. */
function find(
  node: unknown,
  path: Path,
  offset: number,
): { path: Path; pair: Pair; first: Pair } | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (keyStart(pair) === offset) {
        const first = node.items.find((other) => keyText(other) === keyText(pair));
        return first && first !== pair ? { path, pair, first } : undefined;
      }
      const found = find(pair.value, [...path, keyText(pair)], offset);
      if (found) return found;
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const found = find(item, [...path, index], offset);
      if (found) return found;
    }
  }
  return undefined;
}

/** The duplicate key at `offset` (where `yaml` reported it), named with its field and first line. */
export function duplicateKey(doc: Document, offset: number, locator: Locator): DuplicateKey | undefined {
  const found = find(doc.contents, [], offset);
  const firstAt = found && keyStart(found.first);
  if (!found || firstAt === undefined) return undefined;
  const name = keyText(found.pair);
  const { line } = locator.at(firstAt);
  return {
    field: formatPath([...found.path, name]),
    message: `duplicate key ${JSON.stringify(name)}: already set at line ${line}; a key may appear once in a mapping (remove one of them)`,
  };
}
