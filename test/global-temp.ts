import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// One temporary directory per test run, removed at its end: every test, helper and CLI the tests spawn
// makes its files under it (os.tmpdir() reads TMPDIR), so a run leaves nothing behind, however many
// folders the tests make (about 220 per run were left before) and whether or not each cleans up.
export default function setup(): () => void {
  const run = mkdtempSync(join(tmpdir(), 'websites-sync-test-run-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = run;
  return () => {
    rmSync(run, { recursive: true, force: true });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  };
}
