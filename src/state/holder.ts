import type { LockHolder } from './store-types.js';

// Who holds a state's lock, as every waiting run and `state show` name them.

/** Names who holds the lock, so the operator knows whom to wait for; nothing to remove by hand. */
export function heldMessage(holders: readonly LockHolder[], shown: string, account: string): string {
  const who = holders.map(describeHolder).join('; ') || 'a run that has just finished';
  return `another run holds the state of ${account} in ${shown}: ${who}. Wait for it to finish (one run at a time per account); if its process is gone, the server has already released the lock`;
}

export function describeHolder(holder: LockHolder): string {
  const role = holder.role === 'leader' ? 'the leading daemon' : 'a run';
  return `${role} "${holder.command}" (pid ${holder.pid} on ${holder.host}) since ${holder.since}`;
}
