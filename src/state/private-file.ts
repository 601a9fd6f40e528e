import { type FileHandle, open } from 'node:fs/promises';

// Every file the tool writes the account's settings to (the state, the backups of deleted websites, a
// saved plan) is for the operator's eyes only. `open(path, flags, 0o600)` sets the mode only when it
// creates the file: one that already exists (made by hand, copied, left by an older version, created
// under a permissive umask) would keep 0644. So every such file is opened here, and set to 0600 on the
// open handle before a byte is written.

const PRIVATE_MODE = 0o600;

/** `path` opened with `flags` ('a' appends, 'w' replaces), mode 0600 whether it is new or not. */
export async function openPrivateFile(path: string, flags: 'a' | 'w'): Promise<FileHandle> {
  const handle = await open(path, flags, PRIVATE_MODE);
  try {
    await handle.chmod(PRIVATE_MODE);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}
