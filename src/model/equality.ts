// Whether two values of a setting are the same. Lists are normalised (sorted, unique) before they
// get here, so positional comparison is set comparison.
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }
  return a === b;
}
