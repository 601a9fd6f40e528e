// `${NAME}` and `${NAME:-default}` let secrets (passwords) live in the environment instead of the
// repository. Interpolation runs on the parsed YAML tree, before validation, so every value is
// validated as the service will receive it and every problem keeps its line and column.
//
// Syntax, in any string value (never in keys):
//   ${NAME}            the variable's value; an error when NAME is unset (an empty value is used as is)
//   ${NAME:-default}   the variable's value, or `default` when NAME is unset or empty
//   $${                a literal `${` (so `$${NAME}` stays `${NAME}`); a `$` elsewhere is literal
// Defaults cannot contain `}` and references do not nest. Substituted text is not scanned again.
import type { Document } from 'yaml';
import type { Path } from './locate.js';
import { isMap, isScalar, isSeq } from './yaml-lib.js';

export type Env = Record<string, string | undefined>;

export type InterpolationResult = { value: string } | { errors: string[] };

/**
 * What a reference looks like, as regular-expression source: the one definition both interpolation
 * (below) and the editor schema's patterns (patterns.ts) are built from.
 */
export const REFERENCE_SYNTAX = {
  /** A variable name. */
  name: '[A-Za-z_][A-Za-z0-9_]*',
  /** A default: anything up to the closing brace. */
  fallback: '[^}]*',
} as const;

const REFERENCE = new RegExp(`\\$\\$\\{|\\$\\{(${REFERENCE_SYNTAX.fallback})(\\}?)`, 'g');
const BODY = new RegExp(`^(${REFERENCE_SYNTAX.name})(?::-(${REFERENCE_SYNTAX.fallback}))?$`);

interface Reference {
  body: string;
  closed: boolean;
  /** False in a password: a malformed reference there is part of the password, and never quoted. */
  shown: boolean;
}

function resolveReference({ body, closed, shown }: Reference, env: Env, errors: string[]): string {
  const parsed = closed ? BODY.exec(body) : null;
  if (parsed === null) {
    const what = shown ? `"\${${body}${closed ? '}' : ''}"` : 'after "${" (the value is not shown)';
    errors.push(
      `invalid reference ${what}: expected \${NAME} or \${NAME:-default}; write $\${ for a literal "\${"`,
    );
    return '';
  }
  const [, name = '', fallback] = parsed;
  const value = env[name];
  if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
  if (value === undefined) {
    errors.push(
      `environment variable ${name} is not set; set it or give a default with \${${name}:-default}`,
    );
    return '';
  }
  return value;
}

/** The value with its references replaced; `shown` false keeps a malformed one out of the messages. */
export function interpolateString(text: string, env: Env, shown = true): InterpolationResult {
  if (!text.includes('${')) return { value: text };
  const errors: string[] = [];
  const value = text.replace(REFERENCE, (match, body: string | undefined, close: string | undefined) =>
    match === '$${'
      ? '${'
      : resolveReference({ body: body ?? '', closed: close === '}', shown }, env, errors),
  );
  return errors.length === 0 ? { value } : { errors: [...new Set(errors)] };
}

export interface InterpolationFailure {
  path: Path;
  message: string;
}

/** A value that took text from the environment: what it became, and the variables it names. */
export interface Substitution {
  value: string;
  names: string[];
}

const NAMED = new RegExp(`(?<!\\$)\\$\\{(${REFERENCE_SYNTAX.name})`, 'g');

/**
 * Replaces references in every string value of the tree in place; returns what could not be resolved.
 * Each value that took text from the environment is added to `substituted`.
 */
export function interpolateDocument(
  doc: Document,
  env: Env,
  substituted: Substitution[] = [],
): InterpolationFailure[] {
  const failures: InterpolationFailure[] = [];
  interpolateNode(doc.contents, { base: [], env, substituted, failures });
  return failures;
}

interface Interpolating {
  /** The path of `root` in the manifest. */
  base: Path;
  env: Env;
  substituted: Substitution[];
  failures: InterpolationFailure[];
}

/** The same on one node of the tree and what is under it (an entry read on its own, yaml-pieces.ts). */
export function interpolateNode(root: unknown, { base, env, substituted, failures }: Interpolating): void {
  const walk = (node: unknown, path: Path): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        walk(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) walk(item, [...path, index]);
    } else if (isScalar(node) && typeof node.value === 'string') {
      const result = interpolateString(node.value, env, path[path.length - 1] !== 'password');
      if (!('value' in result)) for (const message of result.errors) failures.push({ path, message });
      else if (result.value !== node.value) {
        const names = [...node.value.matchAll(NAMED)].map((match) => match[1] ?? '');
        // Only `$${` escapes (no name): nothing came from the environment, nothing to hide.
        if (names.length > 0) substituted.push({ value: result.value, names });
        node.value = result.value;
      }
    }
  };
  walk(root, base);
}

/**
 * The same replacement on plain data (the fast reader's output), in place. False as soon as a reference
 * cannot be resolved: the caller then reads the file again with positions, to report it.
 */
export function interpolateData(data: unknown, env: Env): boolean {
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      const item: unknown = data[i];
      if (typeof item !== 'string') {
        if (!interpolateData(item, env)) return false;
        continue;
      }
      const result = interpolateString(item, env);
      if (!('value' in result)) return false;
      data[i] = result.value;
    }
    return true;
  }
  if (typeof data !== 'object' || data === null) return true;
  const record = data as Record<string, unknown>;
  // for…in rather than Object.keys: no array per object (this walks every website of the manifest).
  for (const key in record) {
    const value = record[key];
    if (typeof value !== 'string') {
      if (!interpolateData(value, env)) return false;
      continue;
    }
    const result = interpolateString(value, env);
    if (!('value' in result)) return false;
    record[key] = result.value;
  }
  return true;
}
