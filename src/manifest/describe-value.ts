// Messages quote the offending value so the user sees what was read (YAML typing surprises people:
// `password: 0123` is a number). Long values are shortened; passwords are never passed in here.
const MAX_SHOWN = 60;

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}

/** "is required" for a missing key, else "…; got <value>". */
export function expected(what: string, input: unknown): string {
  return input === undefined ? `is required; ${what}` : `${what}; got ${describeValue(input)}`;
}
