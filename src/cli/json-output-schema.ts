import { z } from 'zod';

// What `--output json` prints (and `--out` saves, beside its `saved_plan` section), described once:
// docs/reference/json-plan.md is generated from this schema (scripts/generate-docs.mjs) and the tests
// parse every JSON plan the CLI prints with it, strictly, so a key added to the output without being
// described here fails CI. The renderer is the plan stage's `toJsonPlan`; the CLI adds `refused` and
// `result`.

const id = z.union([z.string(), z.number()]).describe("the website's id, exactly as the service shows it");
const shown = z
  .union([z.boolean(), z.number(), z.string(), z.array(z.string()), z.null()])
  .describe("a value of the field's type, or null");

const field = z
  .object({
    from: shown.describe('the current value; null when secret, unknown or for a create'),
    to: shown.describe('the new value; null when secret or for a delete'),
    from_sensitive: z.boolean().describe('the current value is a secret (a password): `from` is null'),
    to_sensitive: z.boolean().describe('the new value is a secret: `to` is null'),
    from_unknown: z.boolean().describe('the service does not return the current value: `from` is null'),
    resend: z
      .boolean()
      .describe(
        'a declared write-only field sent because no earlier run recorded it (a first run, a lost state file): not drift, but it replaces a value the service does not show',
      ),
  })
  .strict();

const change = z
  .object({
    action: z
      .enum(['create', 'update', 'delete'])
      .describe('changes are in execution order: deletes, updates, creates'),
    id: id.nullable().describe("the website's id; null for a create"),
    domain: z.string().describe('the domain, as the service stores it'),
    fields: z
      .record(z.string(), field)
      .describe('per field name; for a delete, the settings it destroys as last read (`to` null)'),
    risks: z
      .array(z.enum(['delete', 'privacy-public', 'password-removed', 'bot-exclusion-off']))
      .describe('changes that expose or destroy data'),
    risky: z.boolean().describe('`risks` is not empty'),
    resend_only: z.boolean().describe('every field is only (re)sent because its current value is unknown'),
  })
  .strict();

const count = z.number().int().nonnegative();

const summary = z
  .object({
    create: count.describe('websites to create'),
    update: count.describe('websites to update (resends included)'),
    resend: count.describe(
      'of the updates, those that only send declared write-only fields the service does not show (replacing what it holds)',
    ),
    delete: count.describe('deletes sent now'),
    unchanged: count.describe('listed websites that already match'),
    observed: count.describe('`observe: true` websites that drifted (shown, never applied)'),
    pending_delete: count.describe('deletes held back by `delete_delay`'),
    protected: count.describe('deletes prevented by `protect`'),
    domains_with_controls: count
      .optional()
      .describe(
        'names in the plan holding control, bidirectional or zero-width characters (exact here, shown escaped in text and Markdown); present only when not 0',
      ),
  })
  .strict();

const outcome = z
  .object({
    action: z.enum(['create', 'update', 'delete']),
    domain: z.string(),
    id: id.nullable(),
    result: z
      .enum(['created', 'adopted', 'updated', 'deleted', 'already-gone', 'failed', 'skipped'])
      .describe('what happened; `skipped`: not attempted (the run stopped)'),
    error: z.string().optional().describe('why it failed or was not attempted'),
  })
  .strict();

export const jsonOutputSchema = z
  .object({
    format_version: z
      .literal(2)
      .describe('2; keys may be added, none removed or changed without a new version'),
    tool: z
      .object({ name: z.literal('websites-sync'), version: z.string() })
      .strict()
      .optional()
      .describe('the tool that computed the plan'),
    base_url: z.string().optional().describe('the service, shown without credentials'),
    manifest: z.string().optional().describe('the manifest path'),
    summary: summary.describe('counts; `delete` counts only the deletes sent now'),
    changes: z.array(change).describe('the changes, in execution order: deletes, updates, creates'),
    warnings: z.array(z.string()).describe("the manifest's and the plan's warnings"),
    ignored: z.array(z.string()).describe('account websites matched by `ignore`'),
    unmanaged: z
      .array(z.string())
      .describe('account websites not in the manifest, left alone because prune is off'),
    observed: z.array(change).describe('the drift of `observe: true` websites, never applied'),
    pending_deletes: z
      .array(
        z
          .object({
            id,
            domain: z.string(),
            since: z.string().describe('ISO 8601, UTC: since when every run planned the delete'),
            due: z.string().describe('ISO 8601, UTC: when it becomes due'),
          })
          .strict(),
      )
      .describe('deletes held back by `delete_delay`'),
    protected: z
      .array(z.object({ domain: z.string(), reason: z.string() }).strict())
      .describe('websites prune would delete, kept by `protect`'),
    adopted: z
      .array(z.object({ id, domain: z.string(), fields: z.array(z.string()) }).strict())
      .optional()
      .describe('`--adopt`: websites whose write-only fields were recorded as declared, not sent'),
    write_only_kept: z
      .partialRecord(z.enum(['privacy', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips']), count)
      .optional()
      .describe(
        'write-only fields the manifest does not declare and websites-sync never sent, left as the service holds them: field → websites',
      ),
    refused: z.string().optional().describe('why a guard refused the plan (nothing was applied)'),
    result: z
      .object({
        outcomes: z.array(outcome).describe('one per operation'),
        failed: count.describe('operations that failed or were not attempted'),
      })
      .strict()
      .optional()
      .describe('after an apply (`--once` without `--dry-run`)'),
  })
  .strict();
