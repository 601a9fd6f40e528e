// The manifest stage: YAML text → interpolated → validated → canonical desired state, with every
// problem located at its line and column. It never throws for a bad manifest: callers (validate,
// a run, the daemon keeping its last good manifest) decide what problems mean.

import { open } from 'node:fs/promises';
import { domainToASCII } from 'node:url';
import type { Document } from 'yaml';
import {
  anyUnlisted,
  capProblems,
  type DesiredState,
  type Problem,
  readWholeFile,
  type Unlisted,
  type WholeRead,
} from '../model/index.js';
import { checkData, passwordProblem } from './check-data.js';
import { decodeManifest } from './decode.js';
import { depthProblem, isStackOverflow, TOO_DEEP } from './depth.js';
import { describeValue } from './describe-value.js';
import { type DuplicateKey, duplicateKeys } from './duplicate-keys.js';
import { parseManifestFast } from './fast-path.js';
import { type Env, interpolateDocument, type Substitution } from './interpolate.js';
import { documentTree, Locator } from './locate.js';
import {
  conversionSite,
  type PasswordSpan,
  passwordSpans,
  spanAt,
  unresolvedAlias,
} from './password-syntax.js';
import { MANIFEST_FILE, tooLargeProblem } from './read-file.js';
import { type Read, readPiecewise } from './read-pieces.js';
import { parseWithPositions } from './yaml-lib.js';

export { manifestJsonSchema, manifestJsonSchemaText } from './json-schema.js';
export { MANIFEST_FILE, MAX_MANIFEST_BYTES, tooLargeProblem } from './read-file.js';
export { manifestSchema } from './schema.js';
export { declarable } from './settings.js';

export interface ManifestResult {
  /** Present only when no problem is an error. */
  desired?: DesiredState;
  /** Errors and warnings, sorted by position: the first MAX_LISTED_PROBLEMS of each. */
  problems: Problem[];
  /** How many more were found and not listed; present only when some were. */
  unlisted?: Unlisted;
}

export interface ParseOptions {
  /** Shown in every problem and kept as `DesiredState.file`. */
  file: string;
  env: Env;
}

function sortProblems(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

function result(found: Problem[], desired?: DesiredState, counted?: Unlisted): ManifestResult {
  const { problems, unlisted } = capProblems(sortProblems(found), counted);
  const failed = unlisted.errors > 0 || problems.some((problem) => problem.severity === 'error');
  const listed = anyUnlisted(unlisted) ? { problems, unlisted } : { problems };
  return failed || desired === undefined ? listed : { desired, ...listed };
}

interface YamlError {
  code: string;
  message: string;
  pos: [number, number];
}

/** The library's messages that speak to a programmer (its API), in the manifest's terms. */
const LIBRARY_WORDING: Record<string, string> = {
  MULTIPLE_DOCS:
    'a second YAML document starts here: a manifest is one document; remove the "---" or "..." line that separates it from the first (and merge the two)',
};

function syntaxProblems(doc: Document, locator: Locator, spans: PasswordSpan[]): Problem[] {
  const problems: Problem[] = [];
  const inPasswords = new Set<PasswordSpan>();
  let duplicates: Map<number, DuplicateKey> | undefined;
  const fromYaml = (severity: Problem['severity']) => (error: YamlError) => {
    // The library's message may quote the source text it stumbled on: inside a password, it is not used.
    const span = spanAt(spans, error.pos[0]);
    if (span) {
      if (!inPasswords.has(span)) problems.push(passwordProblem(locator, span));
      inPasswords.add(span);
      return;
    }
    const { line, column } = locator.at(error.pos[0]);
    if (error.code === 'DUPLICATE_KEY') duplicates ??= duplicateKeys(doc, locator);
    const duplicate = error.code === 'DUPLICATE_KEY' ? duplicates?.get(error.pos[0]) : undefined;
    if (duplicate) {
      problems.push({ severity, file: locator.file, line, column, ...duplicate });
      return;
    }
    // `yaml` reports a stack overflow as a syntax error; it is nesting that the depth check missed.
    const message = isStackOverflow(error.message)
      ? TOO_DEEP
      : (LIBRARY_WORDING[error.code] ?? error.message);
    problems.push({ severity, file: locator.file, line, column, field: '', message });
  };
  doc.errors.forEach(fromYaml('error'));
  doc.warnings.forEach(fromYaml('warning'));
  return problems;
}

/** Why `doc.toJS()` failed: an alias without its anchor (located at the alias), or too much nesting. */
function conversionProblem(error: unknown, doc: Document, locator: Locator, spans: PasswordSpan[]): Problem {
  const text = String(error);
  const alias = text.includes('Unresolved alias') ? unresolvedAlias(doc) : undefined;
  if (alias) {
    const span = spanAt(spans, alias.offset);
    if (span) return passwordProblem(locator, span);
    const message = `unresolved alias *${alias.name}: the anchor &${alias.name} must be set before the alias`;
    return { severity: 'error', ...locator.at(alias.offset), field: '', message };
  }
  // yaml refuses to expand alias bombs (billion laughs) rather than exhaust memory.
  const message = isStackOverflow(text) ? TOO_DEEP : (error as Error).message;
  const site = conversionSite(doc, message);
  return {
    ...(site === undefined ? locator.locate([]) : locator.at(site)),
    severity: 'error',
    field: '',
    message,
  };
}

function rootProblem(data: unknown, file: string): Problem | undefined {
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) return undefined;
  const message =
    data === null || data === undefined
      ? 'the manifest is empty; it needs at least "version: 1" and a "websites:" list'
      : `the manifest must be a mapping with the keys version, prune, ignore, defaults, websites; got ${describeValue(data)}`;
  return { severity: 'error', file, line: 1, column: 1, field: '', message };
}

/**
 * A valid manifest in plain YAML takes the fast path; anything else (problems to report, YAML beyond
 * the fast reader) is read by `yaml` with positions. The result is the same either way.
 */
export function parseManifest(text: string, options: ParseOptions): ManifestResult {
  // Both readers recurse per level of nesting: the depth check guards them both.
  const deep = depthProblem(text, options.file);
  if (deep) return result([deep]);
  const desired = parseManifestFast(text, options.file, options.env);
  return desired ? { desired, problems: [] } : readWithPositions(text, options);
}

/** The full path: every node keeps its position, so every problem can be located. */
export function parseManifestWithPositions(text: string, options: ParseOptions): ManifestResult {
  const deep = depthProblem(text, options.file);
  return deep ? result([deep]) : readWithPositions(text, options);
}

/** The full path on a text the depth check passed. */
function readWithPositions(text: string, options: ParseOptions): ManifestResult {
  const read = readPiecewise(text, options.file, options.env) ?? readWhole(text, options);
  if ('result' in read) return read.result;
  const { data, failures, substituted, spans, locator, problems, unlisted } = read;
  const root = rootProblem(data, options.file);
  if (root) return result([...problems, root], undefined, unlisted);

  const reported = problems.map((problem) => problem.field).filter((field) => field !== '');
  const checked = checkData(data as Record<string, unknown>, failures, { locator, spans, reported });
  const found = [...problems, ...checked.problems].map((problem) =>
    unquoted(problem, substituted, options.env),
  );
  const counted = {
    errors: (unlisted?.errors ?? 0) + checked.unlistedErrors,
    warnings: unlisted?.warnings ?? 0,
  };
  return result(found, { file: options.file, ...checked.state }, counted);
}

/** The text read whole with `yaml`: its syntax problems, or its interpolated data. */
function readWhole(text: string, options: ParseOptions): Read | { result: ManifestResult } {
  const { doc, lineCounter, unlisted } = parseWithPositions(text);
  const locator = new Locator(documentTree(doc), lineCounter, text, options.file);
  const spans = passwordSpans(doc, text);
  const problems = syntaxProblems(doc, locator, spans);
  if (doc.errors.length > 0) return { result: result(problems, undefined, unlisted) };

  const substituted: Substitution[] = [];
  const failures = interpolateDocument(doc, options.env, substituted);
  try {
    return { data: doc.toJS(), failures, substituted, spans, locator, problems, unlisted };
  } catch (error) {
    return {
      result: result([...problems, conversionProblem(error, doc, locator, spans)], undefined, unlisted),
    };
  }
}

/**
 * A problem's message without the values that came from the environment: `${VAR}` is how a secret is
 * kept out of the repository, and one put in the wrong field (`privacy: ${SHOP_PASSWORD}`) would
 * otherwise be quoted in the message ("got …"), and from there in a CI log or a pull request comment.
 * The value is hidden as quoted whole, and each variable's own text wherever it appears, in every
 * spelling a message may give it (spellingsOf); but a text of fewer than 4 characters, which hides
 * nothing and would blank out common words.
 */
function unquoted(problem: Problem, substituted: Substitution[], env: Env): Problem {
  let message = problem.message;
  for (const { value, names } of substituted) {
    const hidden = `the value of ${names.map((name) => `\${${name}}`).join(', ')} (not shown)`;
    const wholes = spellingsOf(value).flatMap((text) => [describeValue(text), JSON.stringify(text), text]);
    for (const whole of new Set(wholes)) message = message.replace(anyCase(whole), hidden);
    const texts = names.flatMap((name) => spellingsOf(env[name] ?? ''));
    for (const text of new Set(texts)) message = message.replace(anyCase(text), `\${${names.join(', ')}}`);
  }
  return message === problem.message ? problem : { ...problem, message };
}

/**
 * A text as a message may show it: as it is, trimmed (a secret read from a file ends in a line feed),
 * and as a domain's ASCII form (lower-cased, punycode), whole and each encoded label (a message may
 * quote one label); only those of 4 characters or more.
 */
function spellingsOf(text: string): string[] {
  const trimmed = text.trim();
  const ascii = domainToASCII(trimmed.toLowerCase());
  const encoded = ascii.split('.').filter((label) => label.startsWith('xn--'));
  return [...new Set([text, trimmed, ascii, ...encoded])].filter((spelling) => spelling.length >= 4);
}

/** In any case: a message may show a value lower-cased (a domain's). */
function anyCase(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
}

function readError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'cannot read the manifest: the file does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot read the manifest: permission denied';
  if (code === 'EISDIR') return 'cannot read the manifest: it is a directory, not a file';
  return `cannot read the manifest: ${(error as Error).message}`;
}

export async function loadManifest(file: string, env: Env = process.env): Promise<ManifestResult> {
  let read: WholeRead;
  try {
    // Opened as named and read to its end: `--once -f <(sops -d …)` gives its text through a pipe.
    const handle = await open(file);
    try {
      read = await readWholeFile(handle, MANIFEST_FILE);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return {
      problems: [{ severity: 'error', file, line: 1, column: 1, field: '', message: readError(error) }],
    };
  }
  // A directory is read (EISDIR, said above): with `streams`, nothing else is refused but by its size.
  if (!('bytes' in read))
    return { problems: [tooLargeProblem(file, 'tooLarge' in read ? read.tooLarge.size : undefined)] };
  return parseManifestBytes(read.bytes, { file, env });
}

/** The manifest's bytes as read from disk: UTF-8, or an error at the first byte that is not. */
export function parseManifestBytes(bytes: Uint8Array, options: ParseOptions): ManifestResult {
  const decoded = decodeManifest(bytes, options.file);
  return 'problem' in decoded ? { problems: [decoded.problem] } : parseManifest(decoded.text, options);
}
