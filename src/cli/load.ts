import { loadManifest } from '../manifest/index.js';
import { type DesiredState, formatCount, formatProblem, unlistedLine } from '../model/index.js';
import { ExitError } from './errors.js';
import type { Io } from './io.js';

export interface LoadedManifest {
  desired: DesiredState;
  /** Warnings, formatted with their location. */
  warnings: string[];
}

/**
 * Loads the manifest or reports its problems on stderr, in file order, and exits 1; nothing is sent
 * on failure. Past the first MAX_LISTED_PROBLEMS errors (and warnings), one line says how many more
 * there are. Warnings of a valid manifest are returned, not printed: a run shows them with its plan,
 * `validate` prints them (a line counting the unlisted ones last among them).
 */
export async function loadOrExit(file: string, io: Io) {
  const { env, stderr } = io;
  const result = await loadManifest(file, env);
  const more = unlistedLine(file, result.unlisted);
  const warnings = result.problems.filter((p) => p.severity === 'warning').map(formatProblem);
  const errors =
    result.problems.filter((p) => p.severity === 'error').length + (result.unlisted?.errors ?? 0);
  if (errors > 0 || !result.desired) {
    for (const problem of result.problems) stderr.write(`${formatProblem(problem)}\n`);
    if (more) stderr.write(`${more}\n`);
    stderr.write(`${file}: ${formatCount(errors)} error(s); nothing was changed.\n`);
    throw new ExitError(1);
  }
  if (more) warnings.push(more);
  // From here on no output may show a password of the manifest, whatever the service echoes.
  for (const website of result.desired.websites) io.redactor.add(website.password);
  return { desired: result.desired, warnings } satisfies LoadedManifest;
}
