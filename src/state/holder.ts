import { describeHolder } from './lock-holder.js';
import type { HeldBy } from './store-types.js';

// Who holds a shared state's lock, as a waiting run is told: nothing to remove by hand.

export function heldMessage(holders: readonly HeldBy[], shown: string, account: string): string {
  const who = holders.map(describeHeld).join('; ') || 'a run that has just finished';
  return `another run holds the state of ${account} in ${shown}: ${who}. Wait for it to finish (one run at a time per account); if its process is gone, the server has already released the lock`;
}

/** "the leading daemon websites-sync (daemon) on host web-2 (pid 1) since 10:02:11". */
export function describeHeld(holder: HeldBy): string {
  return `${holder.role === 'leader' ? 'the leading daemon' : 'a run'} ${describeHolder(holder)}`;
}
