import type { Config } from '../args.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { loadOrExit } from '../load.js';
import { setHeapGrowth } from '../v8-options.js';

/** Offline: no base URL, no key, no request. */
export async function runValidate(config: Config, io: Io): Promise<number> {
  setHeapGrowth();
  const { desired, warnings } = await loadOrExit(config.manifest, io);
  for (const warning of warnings) io.stderr.write(`${warning}\n`);
  io.stdout.write(
    `${config.manifest}: valid, ${desired.websites.length} website(s)${warnings.length ? `, ${warnings.length} warning(s)` : ''}.\n`,
  );
  return EXIT.ok;
}
