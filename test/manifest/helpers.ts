import { type ManifestResult, parseManifest } from '../../src/manifest/index.js';

/** Manifests are written as lines so that the expected line numbers can be read off the test. */
export function parseLines(lines: string[], env: Record<string, string | undefined> = {}): ManifestResult {
  return parseManifest(`${lines.join('\n')}\n`, { file: 'websites.yaml', env });
}
