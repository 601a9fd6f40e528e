import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface Content {
  /** sha256 of the bytes, or a marker of why they could not be read (a missing file is a state too). */
  hash: string;
  /** Absent when the file could not be read. */
  bytes?: Uint8Array;
}

/** One read of the manifest: the hash always names exactly the text returned with it. */
export async function readContent(file: string): Promise<Content> {
  try {
    const bytes = await readFile(file);
    return { hash: createHash('sha256').update(bytes).digest('hex'), bytes };
  } catch (error) {
    return { hash: `unreadable:${(error as NodeJS.ErrnoException).code ?? 'unknown'}` };
  }
}
