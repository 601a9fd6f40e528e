// How many of a manifest's problems are listed. A typo repeated on every line of a large manifest
// (`]` 100,000 times) listed 100,000 lines in a CI log and held as many problems in memory, enough for
// a daemon under a container's memory limit to be killed. Like javac (-Xmaxerrs, -Xmaxwarns: 100 each)
// or gcc's -fmax-errors, the first ones are listed and the rest only counted: fixing those first
// usually fixes the others, and the count says how much is left.
import { formatCount } from './count.js';
import type { Problem } from './types.js';

/** Errors listed at most for one manifest, and warnings likewise (counted apart). */
export const MAX_LISTED_PROBLEMS = 100;

/** Problems found beyond those listed: counted, not kept. */
export interface Unlisted {
  errors: number;
  warnings: number;
}

export const NONE_UNLISTED: Readonly<Unlisted> = Object.freeze({ errors: 0, warnings: 0 });

/**
 * The first MAX_LISTED_PROBLEMS errors and warnings of `sorted` (in its order), and the count of the
 * rest added to `unlisted` (those a reader counted without keeping).
 */
export function capProblems(
  sorted: readonly Problem[],
  unlisted: Readonly<Unlisted> = NONE_UNLISTED,
): { problems: Problem[]; unlisted: Unlisted } {
  const counts = { ...unlisted };
  const listed = { errors: 0, warnings: 0 };
  const problems: Problem[] = [];
  for (const problem of sorted) {
    const kind = problem.severity === 'error' ? 'errors' : 'warnings';
    if (listed[kind] < MAX_LISTED_PROBLEMS) {
      listed[kind] += 1;
      problems.push(problem);
    } else counts[kind] += 1;
  }
  return { problems, unlisted: counts };
}

/** Whether any problem was left unlisted. */
export function anyUnlisted(unlisted: Readonly<Unlisted> | undefined): boolean {
  return unlisted !== undefined && unlisted.errors + unlisted.warnings > 0;
}

/**
 * The line that follows a capped list: how many more errors and warnings were found, not listed.
 * Undefined when every problem is listed.
 */
export function unlistedLine(file: string, unlisted: Readonly<Unlisted> | undefined): string | undefined {
  if (!unlisted || !anyUnlisted(unlisted)) return undefined;
  const parts = [
    unlisted.errors > 0 ? `${formatCount(unlisted.errors)} more error(s)` : '',
    unlisted.warnings > 0 ? `${formatCount(unlisted.warnings)} more warning(s)` : '',
  ].filter(Boolean);
  const first = `the first ${MAX_LISTED_PROBLEMS}`;
  return `${file}: ${parts.join(' and ')} not listed (only ${first} errors and ${first} warnings are)`;
}
