// The API key as the service takes it: one line of printable ASCII (it travels in a header), read from
// the environment or a file. The CLI checks it at start; the daemon reads the file again after a
// rotation (daemon/key-file.ts), with the same rules and the same messages.
import { readFile } from 'node:fs/promises';

/**
 * The longest key taken: it travels in a header (the service's keys are under 100 characters). A
 * longer one is refused before anything else reads it: every spelling of a secret is masked in all
 * the tool writes, and a key of megabytes (a wrong file named) kept a run busy without end.
 */
export const MAX_API_KEY_LENGTH = 4096;

/** What is wrong with a key (`where` names its source), or undefined; never the key itself. */
export function apiKeyProblem(key: string, where: string): string | undefined {
  if (key.length > MAX_API_KEY_LENGTH) {
    return `${where} holds ${key.length} characters; an API key has at most ${MAX_API_KEY_LENGTH} (is it the right file?)`;
  }
  const lines = key.split(/\r?\n/).length;
  if (lines > 1) return `${where} holds ${lines} lines; it must hold only the API key, on one line`;
  if (/\s/.test(key)) return `${where} holds a space inside the key; it must hold only the API key`;
  // It travels in a header, which carries printable ASCII only (undici refuses the rest before sending
  // anything). The character itself is not shown: it is part of a secret.
  const position = [...key].findIndex((char) => !/^[\x21-\x7e]$/.test(char));
  if (position === -1) return undefined;
  return `${where}: character ${position + 1} of the key is not printable ASCII; an API key holds only letters, digits and punctuation`;
}

/** The key a file holds (its one line, trimmed), or why it cannot be used. */
export type KeyFileRead = { key: string } | { problem: string };

/** `source`: `--api-key-file` or WEBSITES_SYNC_API_KEY_FILE, whichever named the file. */
export function keyOfFileText(text: string, file: string, source: string): KeyFileRead {
  const key = text.trim();
  if (key === '') return { problem: `${source}: ${file} is empty` };
  const problem = apiKeyProblem(key, `${source}: ${file}`);
  return problem === undefined ? { key } : { problem };
}

export function cannotRead(file: string, source: string, error: unknown): string {
  return `${source}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
}

/** The key file read again (the daemon's check after a rotation). */
export async function readApiKeyFile(file: string, source: string): Promise<KeyFileRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { problem: cannotRead(file, source, error) };
  }
  return keyOfFileText(text, file, source);
}
