// `validate` on a 10,000-website manifest with one bad value: the full path that locates problems.
// A daemon under a container's memory limit reads a manifest with a typo this way, and must keep its
// last good manifest and report the problem, not be killed for memory. The same manifest without the
// bad value (the fast path) is measured beside it, to show what locating the problem adds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestOf, PASSWORD_ENV, websites } from './fixtures.mjs';
import { runTool } from './processes.mjs';

/**
 * Locating a problem must not cost much more than reading the manifest: the peak RSS of the invalid
 * manifest at most this many times the valid one's (before the piece-by-piece reading, 1.6-2.0×).
 */
export const INVALID_MANIFEST_TARGET_RATIO = 1.5;

async function validate(dir, name, text) {
  const file = join(dir, name);
  writeFileSync(file, text);
  const run = await runTool(['validate', '-f', file], { env: PASSWORD_ENV, dir });
  return { ...run, output: `${run.stdout}${run.stderr}`, mb: run.maxRssKb / 1024 };
}

/** The manifest of `count` websites, and the same with an unknown key in the middle entry (at `line`). */
function manifests(count) {
  const valid = manifestOf(websites(count));
  const lines = valid.split('\n');
  const at = lines.indexOf(`  - domain: site${String(count / 2).padStart(6, '0')}.example.com`) + 1;
  lines.splice(at, 0, '    timezone: Mars/Olympus');
  return { valid, invalid: lines.join('\n'), line: at + 1 };
}

export async function invalidManifestScenario(dir) {
  const { valid, invalid: text, line } = manifests(10_000);
  const invalid = await validate(dir, 'invalid-10000.yaml', text);
  const fast = await validate(dir, 'valid-10000.yaml', valid);
  // About the size of a 10,000-website manifest with more settings per entry: how the cost grows.
  const larger = manifests(25_000);
  const large = await validate(dir, 'invalid-25000.yaml', larger.invalid);
  const located = invalid.output.includes(`:${line}:5: error: websites[5000].timezone: unknown key`);
  const perByte = ((invalid.mb - fast.mb) * 2 ** 20) / valid.length;
  return {
    ok: invalid.code === 1 && located && invalid.mb <= INVALID_MANIFEST_TARGET_RATIO * fast.mb,
    text: `peak RSS ${invalid.mb.toFixed(0)} MB (${(invalid.mb / fast.mb).toFixed(2)}× the valid one's) for a ${(valid.length / 1e6).toFixed(2)} MB file (Node's own ~50 MB included), ${fast.mb.toFixed(0)} MB without the error: locating it adds ${perByte.toFixed(0)} bytes per byte; exit ${invalid.code}, the error ${located ? 'located at its line' : 'NOT located'}. ℹ️ 25,000 websites (${(larger.valid.length / 1e6).toFixed(2)} MB): ${large.mb.toFixed(0)} MB`,
  };
}
