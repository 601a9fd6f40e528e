import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exportManifest } from '../../export/index.js';
import { manifestJsonSchema, manifestJsonSchemaText } from '../../manifest/index.js';
import { beside, openForWriting, readRegularText, refusePlanted, StateLockError } from '../../state/index.js';
import type { Config } from '../args.js';
import { connectFromConfig } from '../connect.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { refuseUnusablePath } from '../option-values.js';
import { keptFiles, refuseOwnFile } from '../own-files.js';
import { VERSION } from '../version.js';

/** `export [--out FILE]`: the account as a manifest, to adopt the tool on an existing account. */
export async function runExport(config: Config, io: Io): Promise<number> {
  // Checked before reading the account, so a refusal costs no request and writes nothing.
  const kept = await keptFiles(config);
  if (config.outputFile !== undefined) {
    await refuseOwnFile('--out', config.outputFile, kept);
    await refuseTarget('--out', config.outputFile, config.force);
  }
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

/**
 * Where `option` writes, refused before the account is read, so that a refusal costs no request:
 * another user's file or link in a directory anyone can write (on the path, or where its links lead),
 * something other than a regular file (a FIFO would hold the write for ever), or, unless `replace`,
 * any file at all. The write checks again (openForWriting).
 */
async function refuseTarget(option: string, path: string, replace: boolean): Promise<void> {
  await refusePlanted(path);
  refuseUnusablePath(path, option, 'write'); // as the option parser does for --out: here for --schema
  if (!replace && (await lstat(path).catch(() => undefined)) !== undefined) throw exists(path);
}

function exists(path: string): UsageError {
  return new UsageError(`--out: ${path} exists; choose another file, or add --force to replace it`);
}

/** An existing file is usually the manifest in use: it is replaced only when asked. */
async function writeManifest(path: string, text: string, force: boolean): Promise<void> {
  await writeText('--out', path, text, force ? 'w' : 'wx');
}

/** `text` written to `path` (openForWriting), failures said as `option`'s. */
async function writeText(option: string, path: string, text: string, flags: 'w' | 'wx'): Promise<void> {
  try {
    const handle = await openForWriting(path, flags, { private: false });
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof StateLockError) throw error; // as refused everywhere: it names the file
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && flags === 'wx') throw exists(path);
    throw new UsageError(`${option}: cannot write ${path} (${code ?? (error as Error).message})`);
  }
}

/** The name the exported manifest's `$schema` comment points at, relative to the manifest. */
const SCHEMA_NAME = 'websites.schema.json';

/** A schema of ours is some 32 KiB: a file of that name a thousand times larger is something else. */
const SCHEMA_FILE = { holds: 'a websites-sync schema', maxBytes: 32 * 1024 * 1024 };

/**
 * Where `--schema` writes: beside the manifest. A schema of ours there (an older version, as a re-export
 * finds it) is updated; any other file of that name is replaced only with --force.
 */
async function schemaTarget(manifestPath: string, force: boolean): Promise<string> {
  const target = beside(manifestPath, SCHEMA_NAME);
  if (resolve(target) === resolve(manifestPath)) {
    throw new UsageError(
      `--schema: the manifest cannot be named ${SCHEMA_NAME}; that is where the schema goes`,
    );
  }
  await refuseTarget('--schema', target, true);
  // Larger than a schema may be (a refusal): not ours, so replaced only with --force, as any other file.
  const existing = await readRegularText(target, SCHEMA_FILE).catch(() => '');
  if (existing === undefined || force || isOurSchema(existing)) return target;
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

function writeSchema(path: string): Promise<void> {
  return writeText('--schema', path, manifestJsonSchemaText(), 'w');
}
