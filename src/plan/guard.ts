import type { Plan } from './types.js';

// Deleting a website deletes its statistics, for good. A plan that deletes much of an account is far
// more often a broken manifest (a bad merge, a truncated file) than an intent, so it needs --force.

export const GUARD_MAX_DELETES = 10;
export const GUARD_MAX_SHARE = 0.25;
export const GUARD_MIN_ACCOUNT = 8;

export interface GuardInput {
  plan: Plan;
  /** The manifest lists no website at all. */
  websitesEmpty: boolean;
}

/** Why the plan's deletes need --force, or undefined when they do not. */
export function checkDeleteGuard({ plan, websitesEmpty }: GuardInput): string | undefined {
  const deletes = plan.changes.filter((c) => c.kind === 'delete').length;
  if (deletes === 0) return undefined;
  // The share is of the websites the tool manages: ignored ones are out of its reach.
  const account = plan.accountSize - plan.ignored.length;
  if (websitesEmpty) {
    return `the manifest lists no website, so ${deletes} of ${account} managed websites would be deleted; fix the manifest, or re-run with --force if you really mean to delete them`;
  }
  const share = account > 0 ? deletes / account : 0;
  const overCount = deletes > GUARD_MAX_DELETES;
  // A small account is exempt from the share: there one delete is already a large part of it.
  const overShare = plan.accountSize >= GUARD_MIN_ACCOUNT && share > GUARD_MAX_SHARE;
  if (!overCount && !overShare) return undefined;
  const percent = `${(share * 100).toFixed(2)}%`;
  const limit = overCount
    ? `more than ${GUARD_MAX_DELETES} deletes`
    : `${percent} is over ${(GUARD_MAX_SHARE * 100).toFixed(2)}% of the managed websites`;
  return `mass-delete guard: ${deletes} of ${account} managed websites (${percent}) would be deleted, ${limit}; check the manifest, or re-run with --force`;
}

/** Protections this run cannot honour: held by a state file it could not use (README "Keep the state file safe"). */
export interface DoubtfulProtections {
  ids: readonly string[];
  domains: readonly string[];
  /** A file that could not be read at all: any website may be protected there. */
  unknown: boolean;
  /** The files, as the operator should look for them. */
  files: readonly string[];
}

/**
 * Why the plan's deletes need --force because a state file this run could not use may protect them.
 * A protection lost that way would otherwise let the next prune delete a website for good.
 */
export function checkDoubtfulDeletes(plan: Plan, doubt: DoubtfulProtections): string | undefined {
  const ids = new Set(doubt.ids);
  const domains = new Set(doubt.domains);
  const hit = plan.changes.flatMap((c) =>
    c.kind === 'delete' && (doubt.unknown || ids.has(String(c.id)) || domains.has(c.domain)) ? [c] : [],
  );
  if (hit.length === 0) return undefined;
  const names = hit.map((c) => `${c.domain} (id ${c.id})`).join(', ');
  const why = doubt.unknown ? 'may be protected by' : 'are protected in';
  return `${hit.length} delete(s) (${names}) ${why} a state file this run could not use (${doubt.files.join(', ')}), so their protection is not in force; restore that file as the state file (see the warning above), or re-run with --force if you really mean to delete them`;
}
