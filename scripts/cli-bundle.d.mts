// Types for the tests that call scripts/cli-bundle.mjs.
export function importedNames(source: string, specifier: string): string[] | undefined;
/** esbuild's options for the CLI's script (dist/cli/cli.cjs), but its entry point and output. */
export const CLI_SCRIPT: import('esbuild').BuildOptions;
/** The last line of the built script whose id is `id`. */
export function scriptIdLine(id: string): string;
