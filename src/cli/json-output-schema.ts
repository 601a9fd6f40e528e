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

const count = z.number().int().nonnegative();

const traffic = z
  .object({
    visitors: count.nullable().describe('visitors over the window; null when they could not be read'),
    window_days: count.describe("the traffic guard's window, in days (`traffic_window`)"),
    unknown_reason: z.string().optional().describe('why the traffic is unknown'),
    allowed_by: z
      .enum(['allow_delete_with_traffic', '--force'])
      .optional()
      .describe('what let the delete through despite visitors (or unknown traffic under `strict`)'),
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
    traffic: traffic
      .optional()
      .describe("a delete's visitors, read before it by the traffic guard (docs/explanation/guards.md)"),
    unfit: z
      .literal(true)
      .optional()
      .describe("a create beyond the account's plan limit: not sent (docs/explanation/guards.md)"),
  })
  .strict();

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
    traffic_refused: count.describe('deletes the traffic guard refused (the website had visitors)'),
    unfit: count.describe("creates beyond the account's plan limit, not sent"),
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
      .describe(
        'what happened; `already-gone`: the service had no such website any more (deleted since the listing); a delete whose answer was lost and whose retry met that is `deleted`; `skipped`: not attempted (the run stopped)',
      ),
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
    traffic_window_days: count
      .optional()
      .describe("the traffic guard's window in days, when it ran (docs/explanation/guards.md)"),
    traffic_refused: z
      .array(z.object({ id, domain: z.string(), ...traffic.shape }).strict())
      .describe('deletes the traffic guard refused, with their counts; the rest of the plan goes ahead'),
    capacity: z
      .object({
        limit: count.nullable().describe('the most websites the plan allows; null when unlimited or unknown'),
        unlimited: z.boolean().describe('the plan says -1: no limit'),
        known: z.boolean().describe('`/api/v1/account` told the limit'),
        unknown_reason: z.string().optional().describe('why the limit is unknown'),
        now: count.describe('websites on the account now'),
        after: count.describe('websites on the account once the plan is applied'),
        unfit: count.describe('creates beyond the limit, not sent'),
      })
      .strict()
      .optional()
      .describe("the account's plan limit and what the plan leaves of it (docs/explanation/guards.md)"),
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
