import { loadManifest } from '../manifest/index.js';
import { type DesiredState, formatProblem } from '../model/index.js';
import { ExitError } from './errors.js';
import type { Io } from './io.js';

export interface LoadedManifest {
  desired: DesiredState;
  /** Warnings, formatted with their location. */
  warnings: string[];
}

/**
 * Loads the manifest or reports every problem on stderr, in file order, and exits 1; nothing is sent
 * on failure. Warnings of a valid manifest are returned, not printed: a run shows them with its plan,
 * `validate` prints them.
 */
export async function loadOrExit(file: string, io: Io) {
  const { env, stderr } = io;
  const result = await loadManifest(file, env);
  const warnings = result.problems.filter((p) => p.severity === 'warning').map(formatProblem);
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0 || !result.desired) {
    for (const problem of result.problems) stderr.write(`${formatProblem(problem)}\n`);
    stderr.write(`${file}: ${errors.length} error(s); nothing was changed.\n`);
    throw new ExitError(1);
  }
  // From here on no output may show a password of the manifest, whatever the service echoes.
  for (const website of result.desired.websites) io.redactor.add(website.password);
  return { desired: result.desired, warnings } satisfies LoadedManifest;
}
