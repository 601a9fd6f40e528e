// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// The editor schema (`# yaml-language-server: $schema=./websites.schema.json`): the manifest's zod
// schema as JSON Schema, input side (what a user may write: names and codes alike), with the
// validator's string rules as patterns (patterns.ts, attached in fields.ts) and one thing zod cannot
// see: `${NAME}` references are resolved before validation (interpolate.ts), in every string value, so
// a string with a reference is accepted wherever a restricted string is, as validate accepts it.
import { z } from 'zod';
import { HOLDS_REFERENCE, INTERPOLABLE_PATTERN, REFERENCE_PATTERN } from './patterns.js';
import { manifestSchema } from './schema.js';

type JsonSchema = { [key: string]: unknown };

const SCHEMA_ID = 'urn:websites-sync:manifest:v1';
const REFERENCE_REF = '#/$defs/reference';

const REFERENCE = {
  type: 'string',
  pattern: REFERENCE_PATTERN,
  description:
    'Holds ${NAME} or ${NAME:-default}: an environment variable, substituted before the value is checked.',
};

/** Any text, as long as its references are well formed (inline: some editors ignore `$ref` siblings). */
const INTERPOLABLE = {
  pattern: INTERPOLABLE_PATTERN,
  patternErrorMessage:
    'every "${" must start ${NAME} or ${NAME:-default} (an environment variable); write $${ for a literal "${"',
};

/** Keywords whose value is a schema, a list of schemas, or a map of schemas. */
const ONE = new Set(['items', 'additionalProperties', 'not', 'contains']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const MAP = new Set(['properties', '$defs', 'patternProperties']);

/** Keywords that narrow a string beyond its type: the ones a substituted value might not meet. */
const STRING_RULES = ['enum', 'const', 'pattern', 'minLength', 'maxLength', 'format'];
/** Of those, the ones a string holding `${` could meet as written. */
const WRITTEN_RULES = ['pattern', 'minLength', 'maxLength', 'format'];
/** Keywords that describe rather than constrain: they stay on the outside of a wrapped schema. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated']);

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function restrictsString(node: JsonSchema): boolean {
  return node.type === 'string' && STRING_RULES.some((key) => key in node);
}

function mapSchemas(value: unknown, key: string): unknown {
  if (ONE.has(key)) return isSchema(value) ? withReferences(value, false) : value;
  if (LIST.has(key) && Array.isArray(value))
    return value.map((item) => withReferences(item, key === 'anyOf'));
  if (MAP.has(key) && isSchema(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, withReferences(item, false)]),
    );
  }
  return value;
}

/**
 * Every string schema follows interpolation. A restricted one is checked as written only when it holds
 * no `${`, and also accepts a string holding a reference: a union gets one more branch (its members
 * are narrowed, `inUnion`), any other restricted string becomes a union. An unrestricted one (any
 * text: a password, a parameter name, a glob) still rejects a malformed reference, as validate does.
 */
function withReferences(node: unknown, inUnion: boolean): unknown {
  if (!isSchema(node)) return node;
  const mapped: JsonSchema = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, mapSchemas(value, key)]),
  );
  const branches = mapped.anyOf;
  if (Array.isArray(branches) && branches.some((b) => isSchema(b) && restrictsString(b))) {
    return { ...mapped, anyOf: [...branches, { $ref: REFERENCE_REF }] };
  }
  if (mapped.type !== 'string') return mapped;
  if (!restrictsString(mapped)) return { ...mapped, ...INTERPOLABLE };
  if (inUnion) return asWritten(mapped);
  const outside = Object.entries(mapped).filter(([key]) => ANNOTATIONS.has(key));
  const inside = Object.entries(mapped).filter(([key]) => !ANNOTATIONS.has(key));
  return {
    ...Object.fromEntries(outside),
    anyOf: [asWritten(Object.fromEntries(inside)), { $ref: REFERENCE_REF }],
  };
}

/** A restricted string checked as written: only without `${` (a literal list of values never has one). */
function asWritten(node: JsonSchema): JsonSchema {
  const literals = [...(Array.isArray(node.enum) ? node.enum : []), ...('const' in node ? [node.const] : [])];
  const onlyLiterals = !WRITTEN_RULES.some((key) => key in node);
  if (onlyLiterals && !literals.some((v) => typeof v === 'string' && v.includes('${'))) return node;
  return { ...node, not: { pattern: HOLDS_REFERENCE } };
}

/** The editor schema, as `websites-sync schema` prints it and schema/websites.schema.json holds it. */
export function manifestJsonSchema(): JsonSchema {
  const { $schema, $defs, ...rest } = z.toJSONSchema(manifestSchema, { io: 'input' }) as JsonSchema;
  const body = withReferences(rest, false) as JsonSchema;
  const defs = { ...(isSchema($defs) ? $defs : {}), reference: REFERENCE };
  return { $schema, $id: SCHEMA_ID, title: 'websites-sync manifest (websites.yaml)', ...body, $defs: defs };
}

/** The schema as a file: what `schema` prints and `export --schema` writes. */
export function manifestJsonSchemaText(): string {
  return `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
}
