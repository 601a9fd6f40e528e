import type { PlanLimit } from '../model/index.js';
import { formatCount } from '../model/index.js';
import type { Capacity, Change, Plan } from './types.js';

// The account's plan allows so many websites (`/api/v1/account`). Apply runs deletes before creates,
// so the room a plan has is the limit less what stays; the creates beyond it are marked and not sent,
// which the plan says before any request that changes something.

export function fitCapacity(plan: Plan, limit: PlanLimit): Plan {
  const now = plan.accountSize;
  const deletes = plan.changes.filter((c) => c.kind === 'delete').length;
  const creates = plan.changes.filter((c) => c.kind === 'create').length;
  if (limit.kind !== 'limited') {
    return { ...plan, capacity: { limit, now, after: now - deletes + creates, unfit: 0 } };
  }
  const room = Math.max(0, limit.websites - (now - deletes));
  let fitted = 0;
  const changes = plan.changes.map((change): Change => {
    if (change.kind !== 'create') return change;
    fitted++;
    return fitted <= room ? change : { ...change, unfit: true };
  });
  const unfit = Math.max(0, creates - room);
  const capacity: Capacity = { limit, now, after: now - deletes + creates - unfit, unfit };
  return { ...plan, changes, capacity };
}

/**
 * "the account's plan allows 50 websites; 48 now, 47 after this plan", "… allows any number of
 * websites; …", or "the account's plan limit is unknown (…)".
 */
export function capacityText(capacity: Capacity): string {
  const { limit, now, after } = capacity;
  if (limit.kind === 'unknown') return `the account's plan limit is unknown (${limit.reason})`;
  const allows =
    limit.kind === 'unlimited' ? 'any number of websites' : `${count(limit.websites, 'website')}`;
  const unfit =
    capacity.unfit > 0 ? `; ${count(capacity.unfit, 'create')} cannot fit and will not be sent` : '';
  return `the account's plan allows ${allows}; ${formatCount(now)} now, ${formatCount(after)} after this plan${unfit}`;
}

/** Why an unfit create is not sent. */
export function unfitText(capacity: Capacity | undefined): string {
  const limit = capacity?.limit;
  const allows = limit?.kind === 'limited' ? ` (${count(limit.websites, 'website')})` : '';
  return `not created: the account's plan limit${allows} is reached`;
}

function count(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}
