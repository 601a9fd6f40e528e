import { loadManifest } from '../manifest/index.js';
import { type DesiredState, formatProblem } from '../model.js';
import { ExitError } from './errors.js';

export interface LoadedManifest {
  desired: DesiredState;
  /** Warnings, formatted with their location. */
  warnings: string[];
}

/**
 * Loads the manifest or reports every error on stderr and exits 1; nothing is sent on failure.
 * Warnings are returned, not printed: a run shows them with its plan, `validate` prints them.
 */
export async function loadOrExit(file: string, env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream) {
  const result = await loadManifest(file, env);
  const warnings = result.problems.filter((p) => p.severity === 'warning').map(formatProblem);
  const errors = result.problems.filter((p) => p.severity === 'error');
  for (const line of errors.map(formatProblem)) stderr.write(`${line}\n`);
  if (errors.length > 0 || !result.desired) {
    stderr.write(`${file}: ${errors.length} error(s); nothing was changed.\n`);
    throw new ExitError(1);
  }
  return { desired: result.desired, warnings } satisfies LoadedManifest;
}
