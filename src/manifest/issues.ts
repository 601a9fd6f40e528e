// Turns zod issues into findings: one per unknown key (at the key's own line, with a suggestion),
// and the deepest meaningful issue of a union (a bad entry of a list, not "invalid list").
import type { z } from 'zod';
import { MAX_LISTED_PROBLEMS, suggest } from '../model/index.js';
import type { Finding, Path } from './locate.js';
import { DEFAULTS_KEYS, MANIFEST_KEYS, WEBSITE_KEYS } from './schema.js';

type Issue = z.core.$ZodIssue;

function allowedKeysAt(path: Path): readonly string[] {
  if (path.length === 0) return MANIFEST_KEYS;
  if (path.length === 1 && path[0] === 'defaults') return DEFAULTS_KEYS;
  return WEBSITE_KEYS;
}

/** A key that is valid, but at another level, deserves a more precise hint than a spelling guess. */
function placementHint(path: Path, key: string): string | undefined {
  if (path.length === 0 && DEFAULTS_KEYS.includes(key)) {
    return 'settings go under "defaults:" or in a website entry.';
  }
  if (path.length === 0 && key === 'domain') return 'domains go in "websites:" entries.';
  if (path.length === 1 && key === 'domain')
    return 'a domain cannot have a default; list it under "websites:".';
  if (path.length > 1 && MANIFEST_KEYS.includes(key)) return `"${key}" is a top-level key.`;
  return undefined;
}

function unknownKeyFindings(issue: Issue & { keys: string[] }, path: Path): Finding[] {
  const allowed = allowedKeysAt(path);
  return issue.keys.map((key) => {
    const match = suggest(key, allowed);
    const hint = placementHint(path, key) ?? (match === undefined ? undefined : `did you mean "${match}"?`);
    return {
      severity: 'error',
      path: [...path, key],
      onKey: true,
      message: `unknown key; ${hint ? `${hint} Allowed` : 'allowed'} keys: ${allowed.join(', ')}`,
    };
  });
}

/**
 * A union whose only branch of the right type failed deeper down (e.g. a list with one bad entry)
 * reports that branch's issues; otherwise the union's own message says what is allowed.
 */
function unionBranch(issue: Issue): Issue[] | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const deep = issue.errors.filter(
    (branch) => branch.length > 0 && branch.every((inner) => inner.path.length > 0),
  );
  return deep.length === 1 ? deep[0] : undefined;
}

export function issuesToFindings(issues: readonly Issue[], base: Path = []): Finding[] {
  return issues.flatMap((issue): Finding[] => {
    const path = [...base, ...(issue.path as Array<string | number>)];
    if (issue.code === 'unrecognized_keys') return unknownKeyFindings(issue, path);
    const branch = unionBranch(issue);
    if (branch) return issuesToFindings(branch, path);
    return [{ severity: 'error', path, message: issue.message }];
  });
}

/**
 * The issues whose findings can be among the first MAX_LISTED_PROBLEMS listed, and how many findings
 * the others make (counted, not made: a typo in each of 100,000 entries made 100,000 suggestions and
 * findings, hundreds of megabytes at the peak, to list 100). Zod reports a top-level key's issues in
 * file order (a list's by index), so per key the first MAX_LISTED_PROBLEMS are kept, and the rest of
 * the entry that holds the last of them (an entry's own issues come in the schema's order).
 */
export function firstIssues(issues: readonly Issue[]): { issues: Issue[]; rest: number } {
  const counts = new Map<PropertyKey, number>();
  const lastEntry = new Map<PropertyKey, PropertyKey | undefined>();
  const kept: Issue[] = [];
  let rest = 0;
  for (const issue of issues) {
    const [key = '', entry] = issue.path;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count <= MAX_LISTED_PROBLEMS) {
      if (count === MAX_LISTED_PROBLEMS) lastEntry.set(key, entry);
      kept.push(issue);
    } else if (entry !== undefined && lastEntry.get(key) === entry) kept.push(issue);
    else rest += issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
  }
  return { issues: kept, rest };
}
