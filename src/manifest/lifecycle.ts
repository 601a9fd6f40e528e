// What the tool may do to a website, as opposed to what the website should be: protection from
// deletes, observe-only, fields owned by someone else, and how long a delete waits.
import { z } from 'zod';
import {
  DELETE_DELAY_RANGE,
  formatBound,
  parseDurationMs,
  suggest,
  WRITABLE_FIELDS,
  type WritableField,
} from '../model/index.js';
import { describeValue, expected } from './describe-value.js';
import { booleanSchema } from './fields.js';
import { DURATION_PATTERN } from './patterns.js';

function unknownFieldMessage(input: unknown): string {
  const allowed = `allowed: ${WRITABLE_FIELDS.join(', ')}`;
  if (typeof input !== 'string') return expected(`must be a field name; ${allowed}`, input);
  if (input === 'domain') return `"domain" cannot be ignored: it is what identifies the website; ${allowed}`;
  const match = suggest(input, WRITABLE_FIELDS);
  const hint = match === undefined ? '' : `did you mean "${match}"? `;
  return `unknown field ${describeValue(input)}; ${hint}${allowed}`;
}

const ignoreFieldSchema = z.enum(WRITABLE_FIELDS as [WritableField, ...WritableField[]], {
  error: (iss) => unknownFieldMessage(iss.input),
});

export const lifecycleSchemas = {
  protect: booleanSchema(
    'Never delete this website (not by prune, not with --force, not after its entry is removed); the state remembers it by id until a manifest lists it with protect: false.',
  ),
  observe: booleanSchema('Read and compare this website and show its drift, but never write or delete it.'),
  ignore_fields: z
    .array(ignoreFieldSchema, {
      error: (iss) => expected('must be a list of field names such as [email]', iss.input),
    })
    .describe(
      'Fields owned by someone else: never compared, shown or sent (a create leaves them to the service default).',
    ),
};

export type LifecycleKey = keyof typeof lifecycleSchemas;
export const LIFECYCLE_KEYS = Object.keys(lifecycleSchemas) as LifecycleKey[];

export const deleteDelaySchema = z
  .union(
    [
      z.string().meta({
        pattern: DURATION_PATTERN,
        patternErrorMessage: 'must be a duration such as 24h, 30m, 1h30m or 0',
      }),
      z.literal(0),
    ],
    {
      error: (iss) => expected('must be a duration such as 24h, 30m or 0', iss.input),
    },
  )
  .transform((value, ctx) => {
    const ms = typeof value === 'number' ? value : parseDurationMs(value);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a duration such as 24h, 30m, 1h30m or 0; got ${describeValue(value)}`,
      });
      return z.NEVER;
    }
    // The range of --delete-delay: a longer delay would also overflow the date it becomes due.
    const { minMs, maxMs } = DELETE_DELAY_RANGE;
    if (ms < minMs || ms > maxMs) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a duration from ${formatBound(minMs)} to ${formatBound(maxMs)}; got ${describeValue(value)}`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .describe(
    'How long a website must be planned for deletion, run after run, before it is deleted (e.g. 24h), at most 365d. Default 0: at once.',
  );

/** A website's lifecycle keys as written (own entry or `defaults:`); invalid values are left out (zod reports them). */
export interface Lifecycle {
  protect?: boolean;
  observe?: boolean;
  ignoreFields?: readonly WritableField[];
}

export function readLifecycle(raw: Record<string, unknown>): Lifecycle {
  const read = <K extends LifecycleKey>(key: K) => {
    if (!Object.hasOwn(raw, key)) return undefined;
    const parsed = lifecycleSchemas[key].safeParse(raw[key]);
    return parsed.success ? (parsed.data as z.output<(typeof lifecycleSchemas)[K]>) : undefined;
  };
  const lifecycle: Lifecycle = {};
  const protect = read('protect');
  const observe = read('observe');
  const ignoreFields = read('ignore_fields');
  if (protect !== undefined) lifecycle.protect = protect;
  if (observe !== undefined) lifecycle.observe = observe;
  if (ignoreFields !== undefined) lifecycle.ignoreFields = Object.freeze([...new Set(ignoreFields)]);
  return lifecycle;
}

/** Own value, else the manifest's defaults, per key. */
export function effectiveLifecycle(own: Lifecycle, defaults: Lifecycle): Lifecycle {
  return { ...defaults, ...own };
}

/** True when the entry writes any lifecycle key that zod would reject. */
export function lifecycleInvalid(raw: Record<string, unknown>): boolean {
  return LIFECYCLE_KEYS.some(
    (key) => Object.hasOwn(raw, key) && !lifecycleSchemas[key].safeParse(raw[key]).success,
  );
}
