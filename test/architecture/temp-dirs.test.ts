import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

// Issue 23 §4: `npm test` left about 220 folders in the temporary directory per run. A run of test
// files that make temporary folders (and a CLI that makes its own) leaves the directory as it found it.

const repo = fileURLToPath(new URL('../..', import.meta.url));
const vitest = join(repo, 'node_modules/vitest/vitest.mjs');
let outer: string | undefined;
afterEach(() => {
  if (outer) rmSync(outer, { recursive: true, force: true });
});

it('a test run leaves nothing in the temporary directory', () => {
  outer = mkdtempSync(join(tmpdir(), 'websites-sync-temp-check-'));
  const files = ['test/state/file.test.ts', 'test/cli/args.test.ts'];
  const run = spawnSync(process.execPath, [vitest, 'run', ...files], {
    cwd: repo,
    env: { ...process.env, TMPDIR: outer },
    encoding: 'utf8',
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(readdirSync(outer)).toEqual([]);
}, 60_000);
