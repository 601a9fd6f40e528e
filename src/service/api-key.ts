// The API key as the service takes it: one line of printable ASCII (it travels in a header), read from
// the environment or a file. The CLI checks it at start; the daemon reads the file again after a
// rotation (daemon/key-file.ts), with the same rules and the same messages.
import { readSmallFile } from '../model/index.js';

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
function keyOfFileText(text: string, file: string, source: string): KeyFileRead {
  const key = text.trim();
  if (key === '') return { problem: `${source}: ${file} is empty` };
  const problem = apiKeyProblem(key, `${source}: ${file}`);
  return problem === undefined ? { key } : { problem };
}

/**
 * The most bytes a key file may hold: the longest key, with room for line ends and blank lines around
 * it. The file is never read past this (a device, /dev/zero, would be read until memory ran out).
 */
export const MAX_API_KEY_FILE_BYTES = 2 * MAX_API_KEY_LENGTH;

/**
 * The key a file holds, read as the CLI reads it at start and the daemon again after a rotation: a
 * regular file only (a FIFO would block the read for ever), at most MAX_API_KEY_FILE_BYTES. `variable`,
 * the one that takes the same key from the environment, is offered for a pipe.
 */
export function readApiKeyFile(file: string, source: string, variable?: string): KeyFileRead {
  const read = readSmallFile(file, {
    source,
    maxBytes: MAX_API_KEY_FILE_BYTES,
    holds: `an API key, one line of at most ${MAX_API_KEY_LENGTH} characters`,
    ...(variable ? { variable } : {}),
  });
  return 'problem' in read ? read : keyOfFileText(read.text, file, source);
}
