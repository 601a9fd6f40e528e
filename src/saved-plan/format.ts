import { z } from 'zod';
import type { WebsiteId, WebsiteSettings } from '../model/index.js';
import { FORMAT_VERSION, type JsonPlan, SENSITIVE } from '../plan/index.js';

// A saved plan (`--out`) is the JSON plan of `--output json`, plus a `saved_plan` section with what it
// was computed from and the exact operations. It holds no secret: passwords only as an HMAC keyed by
// the file's own random salt, and `"(sensitive)"` where an operation sends one.

export const SAVED_PLAN_VERSION = 1;

/** What one operation sends: the settings as the service takes them; the password never in clear. */
export type SavedSend = Partial<WebsiteSettings> & { password?: typeof SENSITIVE };

export interface SavedOperation {
  action: 'create' | 'update' | 'delete';
  id: WebsiteId | null;
  domain: string;
  /** Null for a delete. */
  send: SavedSend | null;
}

export interface SavedRecord {
  domain: string;
  /** SHA-256 of the record as listed (its readable settings). */
  sha256: string;
}

export interface SavedPlanMeta {
  version: typeof SAVED_PLAN_VERSION;
  tool_version: string;
  created_at: string;
  base_url: string;
  /** The manifest as given on the command line, for messages only: its content is what counts. */
  manifest: string;
  /** Deletes allowed when the plan was made (manifest `prune:` or `--prune`). */
  prune: boolean;
  /** The plan was made with `--force`: the mass-delete guard was overridden when it was reviewed. */
  force: boolean;
  /** Random, per file: keys the password HMACs so they cannot be compared across files. */
  salt: string;
  desired: {
    /** SHA-256 of the canonical desired state (passwords only as "set"). */
    sha256: string;
    /** Per listed domain, to say which website's declaration changed. */
    websites: Record<string, string>;
    /** Per domain with a password: HMAC-SHA256(salt) of the password read from the environment. */
    passwords: Record<string, string>;
  };
  remote: {
    /** The records updates and deletes act on, by id: each must be unchanged. */
    records: Record<string, SavedRecord>;
    /** Domains the plan creates: each must still be absent. */
    absent: string[];
    /** With deletes: every unlisted, non-ignored website; none may have appeared since. */
    unlisted: string[] | null;
    /**
     * Each delete's visitors over the traffic window when the plan was made, by id (null: unknown); a
     * delete of 0 or unknown then with visitors now makes the plan stale. Absent: the guard was off.
     */
    traffic?: Record<string, number | null>;
  };
  /** Aligned with `changes`: the same order, one per change. */
  operations: SavedOperation[];
}

export interface SavedPlanFile extends JsonPlan {
  saved_plan: SavedPlanMeta;
}

/**
 * The schema of a saved plan's file, made at the first read of one: zod builds a schema's parts when it
 * is made, and most runs read no saved plan.
 */
function savedPlanSchema() {
  const websiteId = websiteIdSchema();
  const action = z.enum(['create', 'update', 'delete']);
  const change = changeSchema(websiteId, action);
  return z.object({
    format_version: z.literal(FORMAT_VERSION),
    tool: z.object({ name: z.literal('websites-sync'), version: z.string() }).optional(),
    base_url: z.string().optional(),
    manifest: z.string().optional(),
    summary: summarySchema(),
    changes: z.array(change),
    warnings: z.array(z.string()),
    ignored: z.array(z.string()),
    unmanaged: z.array(z.string()),
    observed: z.array(change).default([]),
    pending_deletes: z
      .array(z.object({ id: websiteId, domain: z.string(), since: z.string(), due: z.string() }))
      .default([]),
    protected: z.array(z.object({ domain: z.string(), reason: z.string() })).default([]),
    // Shown again as saved; what is decided from them is read afresh.
    traffic_refused: z
      .array(
        z.object({
          id: websiteId,
          domain: z.string(),
          visitors: z.number().nullable(),
          window_days: z.number(),
          unknown_reason: z.string().optional(),
        }),
      )
      .default([]),
    saved_plan: metaSchema(websiteId, action),
  });
}

const websiteIdSchema = () => z.union([z.number().int(), z.string().min(1)]);
type WebsiteIdSchema = ReturnType<typeof websiteIdSchema>;
type ActionSchema = z.ZodEnum<{ create: 'create'; update: 'update'; delete: 'delete' }>;

function summarySchema() {
  return z.object({
    create: z.number(),
    update: z.number(),
    resend: z.number(),
    delete: z.number(),
    unchanged: z.number(),
    // Added with protect, observe and delete_delay: a plan saved before them has none.
    observed: z.number().default(0),
    pending_delete: z.number().default(0),
    protected: z.number().default(0),
    traffic_refused: z.number().default(0),
    unfit: z.number().default(0),
  });
}

function changeSchema(websiteId: WebsiteIdSchema, action: ActionSchema) {
  const shown = z.union([z.boolean(), z.number(), z.string(), z.array(z.string()), z.null()]);
  const writableField = z.enum([
    'privacy',
    'email',
    'exclude_bots',
    'exclude_params',
    'exclude_ips',
    'password',
  ]);
  return z.object({
    action,
    id: websiteId.nullable(),
    domain: z.string(),
    fields: z.partialRecord(
      writableField,
      z.object({
        from: shown,
        to: shown,
        from_sensitive: z.boolean(),
        to_sensitive: z.boolean(),
        from_unknown: z.boolean(),
        resend: z.boolean(),
      }),
    ),
    risks: z.array(z.enum(['delete', 'privacy-public', 'password-removed', 'bot-exclusion-off'])),
    risky: z.boolean(),
    resend_only: z.boolean(),
  });
}

function metaSchema(websiteId: WebsiteIdSchema, action: ActionSchema) {
  const send = z.strictObject({
    privacy: z.literal([0, 1, 2]).optional(),
    email: z.boolean().optional(),
    exclude_bots: z.boolean().optional(),
    exclude_params: z.array(z.string()).optional(),
    exclude_ips: z.array(z.string()).optional(),
    password: z.literal(SENSITIVE).optional(),
  });
  return z.object({
    version: z.literal(SAVED_PLAN_VERSION),
    tool_version: z.string(),
    created_at: z.string(),
    base_url: z.string(),
    manifest: z.string(),
    prune: z.boolean(),
    force: z.boolean(),
    salt: z.string().min(16),
    desired: z.object({
      sha256: z.string(),
      websites: z.record(z.string(), z.string()),
      passwords: z.record(z.string(), z.string()),
    }),
    remote: z.object({
      records: z.record(z.string(), z.object({ domain: z.string(), sha256: z.string() })),
      absent: z.array(z.string()),
      unlisted: z.array(z.string()).nullable(),
      traffic: z.record(z.string(), z.number().nullable()).optional(),
    }),
    operations: z.array(
      z.object({ action, id: websiteId.nullable(), domain: z.string(), send: send.nullable() }),
    ),
  });
}

let fileSchema: ReturnType<typeof savedPlanSchema> | undefined;

/**
 * The file's content checked, or why it is not a saved plan this version can apply; `version` (this
 * websites-sync's) tells a plan of another version from one edited by hand.
 */
export function parseSavedPlan(text: string, version?: string): { file: SavedPlanFile } | { error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON (${(error as Error).message})` };
  }
  if (typeof data === 'object' && data !== null && !('saved_plan' in data)) {
    return { error: 'a JSON plan without "saved_plan": write one with --once --dry-run --out FILE' };
  }
  fileSchema ??= savedPlanSchema();
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const why = `${issue?.path.join('.')}: ${issue?.message}`;
    // A plan saved by another version (a newer one, most often) says which: that is what to act on.
    const madeBy = toolVersionOf(data);
    if (madeBy !== undefined && madeBy !== version) {
      return {
        error: `made by websites-sync ${madeBy}, in a form this version cannot read (${why}); plan again with this version`,
      };
    }
    return { error: `not a saved plan of format ${SAVED_PLAN_VERSION} (${why})` };
  }
  const file = parsed.data as SavedPlanFile;
  const misaligned = file.saved_plan.operations.some((op, i) => {
    const change = file.changes[i];
    return change?.domain !== op.domain || change.action !== op.action || change.id !== op.id;
  });
  if (misaligned || file.saved_plan.operations.length !== file.changes.length) {
    return { error: 'its operations do not match its changes (edited by hand?)' };
  }
  return { file };
}

/** The version of websites-sync a file says made it, if it says so in either place a plan has. */
function toolVersionOf(data: unknown): string | undefined {
  const file = data as { saved_plan?: { tool_version?: unknown }; tool?: { version?: unknown } } | null;
  const version = file?.saved_plan?.tool_version ?? file?.tool?.version;
  return typeof version === 'string' && version !== '' ? JSON.stringify(version).slice(1, -1) : undefined;
}
