import { readFile } from 'node:fs/promises';
import { openPrivateFile } from '../state/index.js';
import { parseSavedPlan, type SavedPlanFile } from './format.js';

/** The saved plan at `path`, or why it cannot be used (missing, not JSON, not a saved plan). */
export async function readSavedPlan(path: string): Promise<{ file: SavedPlanFile } | { error: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { error: `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return parseSavedPlan(text);
}

/** Mode 0600: a saved plan names the account's websites and settings, for the operator's eyes only. */
export async function writeSavedPlan(
  path: string,
  file: SavedPlanFile,
  redact: (text: string) => string,
): Promise<void> {
  const handle = await openPrivateFile(path, 'w');
  try {
    await handle.writeFile(redact(`${JSON.stringify(file, null, 2)}\n`));
  } finally {
    await handle.close();
  }
}
