import { writeFile } from 'node:fs/promises';
import { exportManifest } from '../../export/index.js';
import type { Config } from '../args.js';
import { connectFromConfig } from '../connect.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { VERSION } from '../version.js';

/** `export [-o FILE]`: the account as a manifest, to adopt the tool on an existing account. */
export async function runExport(config: Config, io: Io): Promise<number> {
  const client = connectFromConfig(config, io);
  const { baseUrl } = client;
  let exported: ReturnType<typeof exportManifest>;
  try {
    const records = await client.service.listWebsites();
    exported = exportManifest(records, { baseUrl, version: VERSION, now: new Date() });
  } finally {
    await client.close();
  }
  if (config.outputFile === undefined) {
    io.stdout.write(exported.text);
  } else {
    await writeManifest(config.outputFile, io.redactor.redact(exported.text), config.force);
    io.stderr.write(`Wrote ${config.outputFile}.\n`);
  }
  const variables = Object.values(exported.passwordVariables);
  if (variables.length > 0) {
    io.stderr.write(
      `Password-protected websites read their password from: ${variables.join(', ')}; set them before planning.\n`,
    );
  }
  return EXIT.ok;
}

/** An existing file is usually the manifest in use: it is replaced only when asked. */
async function writeManifest(path: string, text: string, force: boolean): Promise<void> {
  try {
    await writeFile(path, text, { flag: force ? 'w' : 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new UsageError(`-o: ${path} exists; choose another file, or add --force to replace it`);
    }
    throw new UsageError(`-o: cannot write ${path} (${code ?? (error as Error).message})`);
  }
}
