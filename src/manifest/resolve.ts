// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// Effective values and the checks that span several fields or entries: own value, else defaults,
// else the service's create default; password against privacy; duplicate domains; listed domains
// that are also ignored. It reads the raw (interpolated) data field by field, so that one invalid
// website does not hide the problems of the others; zod reports the invalid fields themselves.
import type { DesiredState, DesiredWebsite, SourceLocation } from '../model/index.js';
import { canonicalDomain, compileIgnore, type IgnoreRules } from '../model/index.js';
import { globError } from './fields.js';
import { ALLOW_DELETE_KEY, allowDeleteWithTrafficSchema, readTrafficSettings } from './guards.js';
import { effectiveLifecycle, type Lifecycle, readLifecycle } from './lifecycle.js';
import { type Finding, formatPath, type Path } from './locate.js';
import { manifestSchema } from './schema.js';
import { effectiveSettings, readSettings, type Settings, SlotCache } from './settings.js';

export type Resolved = Omit<DesiredState, 'file'> & { findings: Finding[] };

/** The valid `ignore` patterns, with their index in the file, matched as the plan matches them. */
interface IgnoreRule {
  patterns: { pattern: string; index: number }[];
  rules: IgnoreRules;
}

interface Context {
  defaults: Settings;
  defaultLifecycle: Lifecycle;
  cache: SlotCache;
  ignore: IgnoreRule;
  /** Canonical domain → index of the entry that declared it first. */
  seen: Map<string, number>;
  locate: (path: Path) => SourceLocation;
  findings: Finding[];
  /** Whether some website takes its password from `defaults`. */
  defaultPasswordUsed: boolean;
  /** Where a password with a line break was reported already (the default's, once). */
  lineBreakReported: Set<string>;
  /** Domains of the entries with `allow_delete_with_traffic: true` (websites to delete). */
  allowDelete: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readIgnore(raw: unknown): IgnoreRule {
  const patterns = (Array.isArray(raw) ? raw : []).flatMap((pattern: unknown, index) =>
    typeof pattern === 'string' && globError(pattern) === undefined ? [{ pattern, index }] : [],
  );
  return { patterns, rules: compileIgnore(patterns.map((p) => p.pattern)) };
}

/** The canonical domain of entry `index` after the per-domain checks; undefined when invalid. */
function checkDomain(
  raw: unknown,
  index: number,
  ctx: Context,
): { domain: string; written?: string } | undefined {
  const result = typeof raw === 'string' ? canonicalDomain(raw) : undefined;
  if (result === undefined || 'error' in result) return undefined;
  const path: Path = ['websites', index, 'domain'];
  const { domain } = result;
  for (const message of result.warnings) ctx.findings.push({ severity: 'warning', path, message });
  // The name as written is the entry: `www.legacy.example.com` may be listed beside
  // `legacy.example.com`, for a record stored before the service's `www.` rule (the plan refuses to
  // create it when no such record is there).
  const name = result.written ?? domain;
  const first = ctx.seen.get(name);
  const line = (at: number) => ctx.locate(['websites', at, 'domain']).line;
  if (first !== undefined) {
    ctx.findings.push({
      severity: 'error',
      path,
      message: `duplicate domain ${domain}: also declared at line ${line(first)}`,
    });
  } else {
    ctx.seen.set(name, index);
    const twin = ctx.seen.get(` ${domain}`);
    if (twin !== undefined) {
      const message = `${name} and the entry at line ${line(twin)} are both stored as ${domain} by the service: only a record already stored as written can be kept beside the other`;
      ctx.findings.push({ severity: 'warning', path, message });
    } else ctx.seen.set(` ${domain}`, index);
  }
  const rule = ctx.ignore.patterns[ctx.ignore.rules.match(result.written ?? domain)];
  if (rule) {
    ctx.findings.push({
      severity: 'error',
      path,
      message: `${domain} is listed but also matched by ignore pattern "${rule.pattern}" (ignore[${rule.index}]); remove it from one of them`,
    });
  }
  return result.written === undefined ? { domain } : { domain, written: result.written };
}

/** The password to send (only with effective privacy 2), reporting a missing or unused one. */
function checkPassword(own: Settings, effective: Settings, index: number, ctx: Context): string | undefined {
  const { privacy, password } = effective;
  if (privacy.kind !== 'ok' || password.kind === 'invalid') return undefined;
  const path: Path = ['websites', index, 'password'];
  if (privacy.value !== 2) {
    if (own.password.kind === 'ok') {
      const message = 'password is ignored unless privacy is password; it will not be sent';
      ctx.findings.push({ severity: 'warning', path, message });
    }
    return undefined;
  }
  if (password.kind === 'ok') {
    const inherited = own.password.kind === 'absent';
    if (inherited) ctx.defaultPasswordUsed = true;
    if (/[\r\n]/.test(password.value)) lineBreakWarning(inherited ? ['defaults', 'password'] : path, ctx);
    return password.value;
  }
  ctx.findings.push({
    severity: 'error',
    path,
    // A privacy inherited from defaults is shown at the website, where the fix usually goes.
    at: ['websites', index, own.privacy.kind === 'absent' ? 'domain' : 'privacy'],
    message: 'privacy is password but no password is set; add "password: ${VARIABLE}" here or under defaults',
  });
  return undefined;
}

/**
 * The service stores a password as sent (it trims other strings, not this one), and a line break cannot
 * be typed into the statistics page's password box: such a password locks every visitor out. A value
 * read from a file into the environment often ends in one.
 */
function lineBreakWarning(path: Path, ctx: Context): void {
  const where = formatPath(path);
  if (ctx.lineBreakReported.has(where)) return;
  ctx.lineBreakReported.add(where);
  ctx.findings.push({
    severity: 'warning',
    path,
    message:
      'password holds a line break (as a value read from a file often ends in one); it is sent as is, and no one can type it into the statistics page: remove the line break',
  });
}

/** A password the service needs with privacy password cannot also be left to someone else. */
function checkIgnoredPassword(
  effective: Settings,
  lifecycle: Lifecycle,
  index: number,
  ctx: Context,
): boolean {
  const ignored = lifecycle.ignoreFields ?? [];
  if (!ignored.includes('password') || ignored.includes('privacy')) return false;
  if (effective.privacy.kind !== 'ok' || effective.privacy.value !== 2) return false;
  ctx.findings.push({
    severity: 'error',
    path: ['websites', index, 'ignore_fields'],
    at: ['websites', index, 'domain'],
    message:
      'password is in ignore_fields but privacy is password, and the service needs the password with it; ignore privacy too, or declare another privacy',
  });
  return true;
}

/** An entry with `allow_delete_with_traffic: true` is a website to delete: nothing but its domain. */
function resolveDeletion(raw: Record<string, unknown>, index: number, ctx: Context): void {
  const identity = checkDomain(raw.domain, index, ctx);
  for (const key of Object.keys(raw)) {
    if (key === 'domain' || key === ALLOW_DELETE_KEY) continue;
    ctx.findings.push({
      severity: 'error',
      path: ['websites', index, key],
      message: `an entry with ${ALLOW_DELETE_KEY}: true is a website to delete, so it sets nothing else; remove ${key}, or remove ${ALLOW_DELETE_KEY} to keep the website`,
    });
  }
  // The name as written: `www.legacy.example.com` is the record stored so before the service's `www.` rule.
  if (identity) ctx.allowDelete.push(identity.written ?? identity.domain);
}

function isDeletion(raw: Record<string, unknown>): boolean {
  // Asked of every entry: the schema only for the few that carry the key (a failed parse builds an error,
  // which for 100,000 entries was a third of a second and as much garbage).
  if (!Object.hasOwn(raw, ALLOW_DELETE_KEY)) return false;
  const parsed = allowDeleteWithTrafficSchema.safeParse(raw[ALLOW_DELETE_KEY]);
  return parsed.success && parsed.data;
}

function resolveWebsite(raw: unknown, index: number, ctx: Context): DesiredWebsite | undefined {
  if (!isRecord(raw)) return undefined;
  if (isDeletion(raw)) {
    resolveDeletion(raw, index, ctx);
    return undefined;
  }
  const identity = checkDomain(raw.domain, index, ctx);
  const own = readSettings(raw, ctx.cache);
  const effective = effectiveSettings(own, ctx.defaults);
  const lifecycle = effectiveLifecycle(readLifecycle(raw), ctx.defaultLifecycle);
  if (checkIgnoredPassword(effective, lifecycle, index, ctx)) return undefined;
  const password = lifecycle.ignoreFields?.includes('password')
    ? undefined
    : checkPassword(own, effective, index, ctx);
  const { privacy, email, exclude_bots, exclude_params, exclude_ips } = effective;
  if (
    identity === undefined ||
    privacy.kind !== 'ok' ||
    email.kind !== 'ok' ||
    exclude_bots.kind !== 'ok' ||
    exclude_params.kind !== 'ok' ||
    exclude_ips.kind !== 'ok'
  ) {
    return undefined;
  }
  // Built in this order (password, then location, last) without spreads: this runs once per website.
  const website = {
    domain: identity.domain,
    privacy: privacy.value,
    email: email.value,
    exclude_bots: exclude_bots.value,
    exclude_params: exclude_params.value,
    exclude_ips: exclude_ips.value,
  } as DesiredWebsite;
  if (identity.written !== undefined) website.writtenDomain = identity.written;
  const undeclared = ctx.cache.undeclared(own, ctx.defaults);
  if (undeclared !== undefined) website.undeclared = undeclared;
  if (password !== undefined) website.password = password;
  if (lifecycle.protect !== undefined) website.protect = lifecycle.protect;
  if (lifecycle.observe) website.observe = true;
  if (lifecycle.ignoreFields && lifecycle.ignoreFields.length > 0)
    website.ignoreFields = lifecycle.ignoreFields;
  website.location = ctx.locate(['websites', index, 'domain']);
  return website;
}

export function resolveManifest(
  data: Record<string, unknown>,
  locate: (path: Path) => SourceLocation,
  cache: SlotCache = new SlotCache(),
): Resolved {
  const ctx: Context = {
    defaults: readSettings(isRecord(data.defaults) ? data.defaults : {}, cache),
    defaultLifecycle: readLifecycle(isRecord(data.defaults) ? data.defaults : {}),
    cache,
    ignore: readIgnore(data.ignore),
    seen: new Map(),
    locate,
    findings: [],
    defaultPasswordUsed: false,
    lineBreakReported: new Set(),
    allowDelete: [],
  };
  const entries: unknown[] = Array.isArray(data.websites) ? data.websites : [];
  const websites = entries.flatMap((raw, index) => resolveWebsite(raw, index, ctx) ?? []);
  if (ctx.defaults.password.kind === 'ok' && !ctx.defaultPasswordUsed) {
    ctx.findings.push({
      severity: 'warning',
      path: ['defaults', 'password'],
      message: 'password is ignored unless privacy is password, and no website with privacy password uses it',
    });
  }
  const prune = manifestSchema.shape.prune.safeParse(data.prune);
  const delay = manifestSchema.shape.delete_delay.safeParse(data.delete_delay);
  return {
    prune: (prune.success && prune.data) === true,
    ...(delay.success && delay.data !== undefined ? { deleteDelayMs: delay.data } : {}),
    ...readTrafficSettings(data),
    ...(ctx.allowDelete.length > 0 ? { allowDeleteWithTraffic: ctx.allowDelete } : {}),
    ignore: ctx.ignore.patterns.map((rule) => rule.pattern),
    websites,
    // Entries that only ask for deletes keep nothing: a manifest of them alone is guarded as empty.
    websitesEmpty: entries.length === ctx.allowDelete.length,
    findings: ctx.findings,
  };
}
