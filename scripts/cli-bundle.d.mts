// Types for the tests that call scripts/cli-bundle.mjs.
export function importedNames(source: string, specifier: string): string[] | undefined;
