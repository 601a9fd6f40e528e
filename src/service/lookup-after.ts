import { AuthError, ServiceError } from './errors.js';
import { NotSentError } from './stop.js';

// After a write whose effect is unknown (a 5xx, a lost answer), the website is looked up to learn
// what happened. When that lookup fails too, what the operator must read is the write's own failure
// and that it may have been done, not only a GET they never asked for.

/**
 * What to throw when the lookup after the ambiguous write `failed` failed with `lookup`: the write's
 * failure, saying it may have been done (`maybe`, e.g. "site.example.com may have been stored") and
 * why that could not be checked. A refused key stays itself (the run stops); a lookup the stop held
 * back leaves the write's own failure to report.
 */
export function lookupFailed(failed: ServiceError, lookup: unknown, maybe: string): unknown {
  if (lookup instanceof NotSentError) return failed;
  if (!(lookup instanceof ServiceError) || lookup instanceof AuthError) return lookup;
  return new ServiceError(
    `${failed.message}; ${maybe}, and looking it up failed too (${lookup.message}); the next run reads the account again and sees which`,
    { method: failed.method, path: failed.path, status: failed.status, cause: lookup },
  );
}
