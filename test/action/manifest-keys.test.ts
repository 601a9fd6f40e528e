import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestName, markerOf, planFileOf } from '../../src/action/manifest-keys.js';

// The names of what the Action writes for a manifest: the default manifest's are those written before
// manifests were told apart; another's are its own, a file name and a hidden marker alike.

describe('manifest keys', () => {
  const sha = 'a'.repeat(40);

  it.each([
    ['websites.yaml', '<!-- websites-sync plan -->', `${sha}.json`],
    ['staging.yaml', '<!-- websites-sync plan: staging.yaml -->', `${sha}.staging.yaml.json`],
    [
      'envs/prod/websites.yaml',
      '<!-- websites-sync plan: envs%2Fprod%2Fwebsites.yaml -->',
      `${sha}.envs%2Fprod%2Fwebsites.yaml.json`,
    ],
    ['a-->b.yaml', '<!-- websites-sync plan: a--%3Eb.yaml -->', `${sha}.a--%3Eb.yaml.json`],
  ])('%s', (manifest, marker, file) => {
    expect(markerOf('plan', manifest)).toBe(marker);
    expect(planFileOf(sha, manifest)).toBe(file);
  });

  it('names a manifest by its path in the checkout, however the input spelled it', () => {
    const workspace = process.cwd();
    expect(manifestName(workspace, './websites.yaml')).toBe('websites.yaml');
    expect(manifestName(workspace, join(workspace, 'envs', 'staging.yaml'))).toBe('envs/staging.yaml');
    expect(markerOf('drift', 'staging.yaml')).not.toBe(markerOf('drift', 'websites.yaml'));
    expect(markerOf('stale plan', 'websites.yaml')).toBe('<!-- websites-sync stale plan -->');
  });
});
