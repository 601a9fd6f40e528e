// Whether two values of a setting are the same. Lists are normalised (sorted, unique) before they
// get here, so positional comparison is set comparison.
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }
  return a === b;
}

/**
 * An IP address as both sides compare it: IPv6's hex digits name one address in either case, and the
 * service keeps the case that was typed in its web UI (`2001:DB8::1`). The manifest's entries and the
 * service's are both read through this one rule, so neither case is a change.
 */
export function canonicalIp(entry: string): string {
  return entry.toLowerCase();
}
