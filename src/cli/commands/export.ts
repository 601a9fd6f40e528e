import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { exportManifest } from '../../export/index.js';
import { manifestJsonSchema, manifestJsonSchemaText } from '../../manifest/index.js';
import { refusePlanted } from '../../state/index.js';
import type { Config } from '../args.js';
import { connectFromConfig } from '../connect.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { keptFiles, refuseOwnFile } from '../own-files.js';
import { VERSION } from '../version.js';

/** `export [--out FILE]`: the account as a manifest, to adopt the tool on an existing account. */
export async function runExport(config: Config, io: Io): Promise<number> {
  // Checked before reading the account, so a refusal costs no request and writes nothing.
  const kept = await keptFiles(config);
  if (config.outputFile !== undefined) await refuseOwnFile('--out', config.outputFile, kept);
  const schemaFile =
    config.withSchema && config.outputFile !== undefined
      ? await schemaTarget(config.outputFile, config.force)
      : undefined;
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
    await writeManifest(config.outputFile, io.redactor.show(exported.text), config.force);
    io.stderr.write(`Wrote ${config.outputFile}.\n`);
    if (schemaFile !== undefined) {
      await writeSchema(schemaFile);
      io.stderr.write(`Wrote ${schemaFile}: the editor schema its first line points at.\n`);
    }
  }
  const note = passwordNote(Object.values(exported.passwordVariables));
  if (note) io.stderr.write(note);
  return EXIT.ok;
}

/** Which variables to set: named when they are few; counted, with where to find them, when many. */
function passwordNote(variables: readonly string[]): string | undefined {
  if (variables.length === 0) return undefined;
  if (variables.length <= 3) {
    return `Password-protected websites read their password from: ${variables.join(', ')}; set them before planning.\n`;
  }
  return `${variables.length} password-protected websites read their password from a variable each (${variables.slice(0, 2).join(', ')}, …), named in the manifest beside the website; set them before planning.\n`;
}

/** An existing file is usually the manifest in use: it is replaced only when asked. */
async function writeManifest(path: string, text: string, force: boolean): Promise<void> {
  await refusePlanted(path);
  try {
    await writeFile(path, text, { flag: force ? 'w' : 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new UsageError(`--out: ${path} exists; choose another file, or add --force to replace it`);
    }
    throw new UsageError(`--out: cannot write ${path} (${code ?? (error as Error).message})`);
  }
}

/** The name the exported manifest's `$schema` comment points at, relative to the manifest. */
const SCHEMA_NAME = 'websites.schema.json';

/**
 * Where `--schema` writes: beside the manifest. A schema of ours there (an older version, as a re-export
 * finds it) is updated; any other file of that name is replaced only with --force.
 */
async function schemaTarget(manifestPath: string, force: boolean): Promise<string> {
  const target = join(dirname(manifestPath), SCHEMA_NAME);
  if (resolve(target) === resolve(manifestPath)) {
    throw new UsageError(
      `--schema: the manifest cannot be named ${SCHEMA_NAME}; that is where the schema goes`,
    );
  }
  let existing: string;
  try {
    existing = await readFile(target, 'utf8');
  } catch {
    return target;
  }
  if (force || isOurSchema(existing)) return target;
  throw new UsageError(
    `--schema: ${target} exists and is not a websites-sync schema; move it, or add --force to replace it`,
  );
}

function isOurSchema(text: string): boolean {
  try {
    return (JSON.parse(text) as { $id?: unknown }).$id === manifestJsonSchema().$id;
  } catch {
    return false;
  }
}

async function writeSchema(path: string): Promise<void> {
  await refusePlanted(path);
  try {
    await writeFile(path, manifestJsonSchemaText());
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--schema: cannot write ${path} (${code ?? (error as Error).message})`);
  }
}
