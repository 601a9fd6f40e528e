import { heldMessage } from '../holder.js';
import { StateLockError } from '../lock-error.js';
import type { HeldBy } from '../store-types.js';
import {
  type Connection,
  type LockKey,
  readHolders,
  releaseAdvisoryLock,
  tryAdvisoryLock,
} from './connection.js';

/**
 * `work` done while no daemon leads any of `accounts` and this connection holds each one's run lock
 * (`state migrate` replacing them): a run of one of them waits for it, or is waited for. Other
 * accounts of the schema are not in the way, whatever runs for them.
 */
export async function withAccountsLocked(
  connection: Connection,
  where: { schema: string; shown: string },
  accounts: string[],
  me: Pick<HeldBy, 'host' | 'pid' | 'command'>,
  work: () => Promise<void>,
): Promise<void> {
  const { schema, shown } = where;
  const taken: LockKey[] = [];
  try {
    for (const account of accounts) {
      const holders = await readHolders(connection.client, schema, account);
      const key: LockKey = { schema, account, role: 'run' };
      if (holders.length > 0 || !(await tryAdvisoryLock(connection, key, me))) {
        const now = holders.length > 0 ? holders : await readHolders(connection.client, schema, account);
        const daemon = now.some((holder) => holder.role === 'leader');
        const stop = daemon ? '; a daemon that leads it never finishes: stop its daemons first' : '';
        throw new StateLockError(`${heldMessage(now, shown, account)}${stop}`);
      }
      taken.push(key);
    }
    await work();
  } finally {
    for (const key of taken.reverse()) await releaseAdvisoryLock(connection, key).catch(() => {});
  }
}
