import { readFile } from 'node:fs/promises';
import { openPrivateFile } from '../state/index.js';
import { parseSavedPlan, type SavedPlanFile } from './format.js';
import { signedText } from './signature.js';

/** A saved plan as read: its checked content, and its text (whose signature the run checks). */
export interface ReadSavedPlan {
  file: SavedPlanFile;
  text: string;
}

/** The saved plan at `path`, or why it cannot be used (missing, not JSON, not a saved plan). */
export async function readSavedPlan(path: string): Promise<ReadSavedPlan | { error: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { error: `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  const parsed = parseSavedPlan(text);
  return 'error' in parsed ? parsed : { file: parsed.file, text };
}

/**
 * Mode 0600: a saved plan names the account's websites and settings, for the operator's eyes only.
 * Signed with `secret` (derived from the API key) over its final, redacted content.
 */
export async function writeSavedPlan(
  path: string,
  file: SavedPlanFile,
  options: { redact: (json: string) => string; secret: string },
): Promise<void> {
  const handle = await openPrivateFile(path, 'w');
  try {
    await handle.writeFile(signedText(options.redact(JSON.stringify(file)), options.secret));
  } finally {
    await handle.close();
  }
}
