// `validate` on a 10,000-website manifest with one bad value: the full path that locates problems.
// A daemon under a container's memory limit reads a manifest with a typo this way, and must keep its
// last good manifest and report the problem, not be killed for memory.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestOf, PASSWORD_ENV, websites } from './fixtures.mjs';
import { runTool } from './processes.mjs';

export const INVALID_MANIFEST_TARGET_MB = 100;

export async function invalidManifestScenario(dir) {
  const lines = manifestOf(websites(10_000)).split('\n');
  const at = lines.indexOf('  - domain: site005000.example.com') + 1;
  lines.splice(at, 0, '    timezone: Mars/Olympus');
  const file = join(dir, 'invalid-10000.yaml');
  const text = lines.join('\n');
  writeFileSync(file, text);
  const run = await runTool(['validate', '-f', file], { env: PASSWORD_ENV, dir });
  const located = `${run.stdout}${run.stderr}`.includes(
    `:${at + 1}:5: error: websites[5000].timezone: unknown key`,
  );
  const mb = run.maxRssKb / 1024;
  const perByte = (run.maxRssKb * 1024) / text.length;
  return {
    ok: run.code === 1 && located && mb < INVALID_MANIFEST_TARGET_MB,
    text: `peak RSS ${mb.toFixed(0)} MB for a ${(text.length / 1e6).toFixed(2)} MB file (${perByte.toFixed(0)} bytes per byte, Node's own ~50 MB included); exit ${run.code}, the error ${located ? 'located at its line' : 'NOT located'}`,
  };
}
