import { type FileHandle, stat } from 'node:fs/promises';
import {
  notRegular,
  notRegularMessage,
  readWholeFile,
  tooLargeMessage,
  type WholeFileSpec,
} from '../model/index.js';
import { openForReading, openPrivateFile, StateLockError } from '../state/index.js';
import { parseSavedPlan, type SavedPlanFile } from './format.js';
import { signedText } from './signature.js';

/**
 * The largest saved plan read. One of 100,000 changes (every website created with five settings, as the
 * simulator measured) is about 230 MiB: a saved plan is pretty-printed JSON and carries each change
 * twice (as shown, and as executed). The bound is twice that, as far as it can go: V8's longest string
 * (512 MiB) is the ceiling of any file read as text. A larger file is refused, not read further.
 */
export const SAVED_PLAN_FILE: WholeFileSpec = {
  holds: 'a saved plan',
  maxBytes: 500 * 1024 * 1024,
  room: 'one of 100,000 changes is about 230 MiB',
};

/** A saved plan as read: its checked content, and its text (whose signature the run checks). */
export interface ReadSavedPlan {
  file: SavedPlanFile;
  text: string;
}

/**
 * The saved plan at `path`, or why it cannot be used (missing, not JSON, not a saved plan, made by
 * another `version` of websites-sync in a form this one cannot read).
 */
export async function readSavedPlan(
  path: string,
  version: string,
): Promise<ReadSavedPlan | { error: string }> {
  // Read as the state is (openForReading): another user's name in a directory anyone can write is
  // refused, and a FIFO is not read (it would wait for ever).
  // Said first (stat follows links: /dev/stdin, <(…)): a pipe reads once and is not a saved plan.
  const piped = await stat(path).then(notRegular, () => undefined);
  if (piped !== undefined) return { error: `${notRegularMessage(piped)}; give the file --out saved` };
  let text: string;
  let handle: FileHandle;
  try {
    handle = await openForReading(path);
  } catch (error) {
    if (error instanceof StateLockError) throw error;
    return { error: `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  try {
    const read = await readWholeFile(handle, SAVED_PLAN_FILE);
    if ('notRegular' in read) return { error: notRegularMessage(read.notRegular) };
    if ('tooLarge' in read) return { error: tooLargeMessage('it', SAVED_PLAN_FILE, read.tooLarge.size) };
    text = read.bytes.toString('utf8');
  } catch (error) {
    return { error: `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  } finally {
    await handle.close();
  }
  const parsed = parseSavedPlan(text, version);
  return 'error' in parsed ? parsed : { file: parsed.file, text };
}

/** A plan whose operations the redactor would change: saved, it could never be applied. */
export class SavedPlanMasked extends Error {
  constructor() {
    super(
      'the plan cannot be saved: a secret websites-sync masks in every output (a password of the manifest, or the API key) is also a word of a website name or a value the plan must keep exactly, so the saved plan would never match a fresh one; choose a password that is not such a word, then plan again',
    );
  }
}

/**
 * Mode 0600: a saved plan names the account's websites and settings, for the operator's eyes only.
 * Signed with `secret` (derived from the API key) over its final, redacted content. What an apply
 * executes and checks (`saved_plan`, `changes`) must come through the redaction unchanged; otherwise
 * nothing is written (an existing file is left as it is) and SavedPlanMasked says why.
 */
export async function writeSavedPlan(
  path: string,
  file: SavedPlanFile,
  options: { redact: (json: string) => string; secret: string },
): Promise<void> {
  const text = options.redact(JSON.stringify(file));
  if (!keptWhole(text, file)) throw new SavedPlanMasked();
  const handle = await openPrivateFile(path, 'w');
  try {
    await handle.writeFile(signedText(text, options.secret));
  } finally {
    await handle.close();
  }
}

/**
 * Whether the redacted `text` still holds `file`'s executed and checked parts exactly. The redaction
 * masks secrets in the file's strings only (Redactor.showJson), so a password that is a word of JSON
 * itself ("true", "1234") leaves the file as it is; one that is a word of a domain or a value does not.
 * A text that no longer parses (a `redact` that masks as text) is masked too.
 */
function keptWhole(text: string, file: SavedPlanFile): boolean {
  const kept = (plan: SavedPlanFile) => JSON.stringify([plan.saved_plan, plan.changes]);
  try {
    return kept(JSON.parse(text) as SavedPlanFile) === kept(file);
  } catch {
    return false;
  }
}
