import { manifestJsonSchemaText } from '../../manifest/index.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';

/** `schema`: the editor schema of this version's manifest format; reads nothing, needs no key. */
export function runSchema(io: Io): number {
  io.stdout.write(manifestJsonSchemaText());
  return EXIT.ok;
}
