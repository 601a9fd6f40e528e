import { isAbsolute, relative, resolve, sep } from 'node:path';

// What the Action writes is the manifest's: two steps planning two manifests on one pull request
// (websites.yaml, staging.yaml) each keep their own living comment, stale-plan comment, drift issue and
// signed plan. They are named after the manifest's path in the checkout; the default manifest keeps the
// names it had before manifests were told apart, so the comments, issues and plans already written for
// it are still found.

/** The manifest the Action's names were made for before they named a manifest (action.yml's default). */
export const DEFAULT_MANIFEST = 'websites.yaml';

export type Marked = 'plan' | 'stale plan' | 'drift';

/**
 * The manifest's path relative to the checkout, with `/` on every runner: how a job names it. `path`
 * is as the command line reads it (relative to the working directory, the checkout on a runner).
 */
export function manifestName(workspace: string, path: string): string {
  const inside = relative(workspace, resolve(path));
  return (isAbsolute(inside) ? resolve(path) : inside).split(sep).join('/');
}

/**
 * The path as one token: a file name (no `/`) and an HTML comment's text (no `-->`) alike, one token
 * per path (encodeURIComponent is reversible).
 */
function token(manifest: string): string {
  return encodeURIComponent(manifest);
}

/** The hidden marker that opens the body of a comment or issue the Action writes for `manifest`. */
export function markerOf(what: Marked, manifest: string): string {
  if (manifest === DEFAULT_MANIFEST) return `<!-- websites-sync ${what} -->`;
  return `<!-- websites-sync ${what}: ${token(manifest)} -->`;
}

/** The file of the plans branch that keeps the signed plan of head commit `sha` for `manifest`. */
export function planFileOf(sha: string, manifest: string): string {
  return manifest === DEFAULT_MANIFEST ? `${sha}.json` : `${sha}.${token(manifest)}.json`;
}

/** The manifest as the comments name it: a code span (a backquote in the path cannot end it). */
export function shownManifest(manifest: string): string {
  return `\`${manifest.replace(/`/g, "'")}\``;
}
