import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprint, fingerprintKey, type WebsiteState } from '../../src/state/index.js';
import { type Fixture, manifestText, startFixture, swapConfigMap, writeInPlace } from './fixture.js';

// A key regenerated in the service's web interface ends the old one at once. An operator then updates
// the key file (a Kubernetes Secret: the kubelet swaps its `..data` symlink; a bind mount is rewritten
// in place), and the daemon, which reads the file again before its next run, goes on without a restart.

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const NEW_KEY = 'regenerated-in-the-web-ui';
const MANIFEST = manifestText([{ domain: 'a.example.com' }]);

async function readyz(f: Fixture): Promise<{ status: number; body: string }> {
  const response = await fetch(f.url('/readyz'));
  return { status: response.status, body: await response.text() };
}

/** A daemon whose first run succeeded, then whose key the service regenerates at the next request. */
async function rotated(keyFile?: 'plain' | 'secret', manifest = MANIFEST): Promise<Fixture> {
  const f = await startFixture({ manifest, ...(keyFile ? { keyFile } : {}) });
  fixture = f;
  expect((await f.runAfter(0)).result).toBe('success');
  // The next request is answered, and the one after it meets the regenerated key: part-way.
  f.sim.setFaults({ rotateKeyAfter: 1, rotatedKey: NEW_KEY });
  const failed = await f.resync();
  expect(failed.result).toBe('failure');
  expect(f.sim.apiKey).toBe(NEW_KEY);
  return f;
}

describe('daemon: an API key rotated while the key comes from --api-key-file', () => {
  it.each([
    { how: 'rewritten in place', layout: 'plain' as const, save: writeInPlace },
    { how: "a Secret volume's ..data symlink swapped", layout: 'secret' as const, save: swapConfigMap },
  ])('takes the new key when the file is $how, without a restart', async ({ layout, save }) => {
    const f = await rotated(layout);
    const failed = f.runs.at(-1)!;
    expect(failed.reason).toMatch(/rotated or revoked/);
    expect(failed.reason).toContain(`Write the new key into ${f.keyFile} (--api-key-file)`);
    expect(failed.reason).toMatch(/no restart needed/);
    const notReady = await readyz(f);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatch(/^last run: failure: .*rotated or revoked/);

    await save(f.keyFile, `${NEW_KEY}\n`);
    f.sim.clearRequests();
    const next = await f.resync();
    expect(next.result).toBe('success');
    expect(f.sim.requests.length).toBeGreaterThan(0);
    expect(f.sim.requests.every((request) => request.status !== 401)).toBe(true);
    expect(await readyz(f)).toEqual({ status: 200, body: 'ready\n' });
    expect(f.logs.map((line) => line.msg)).toContain(
      `the API key in ${f.keyFile} changed: the next requests use the new key (fingerprints of write-only fields recorded with the key before are still recognised, and recorded again with the new one: nothing is resent for them)`,
    );
    expect(JSON.stringify(f.logs)).not.toContain(NEW_KEY);
  });

  it('the run with the new key resends no write-only field recorded with the key it replaced', async () => {
    const manifest = [
      'version: 1',
      'websites:',
      '  - domain: locked.example.com',
      '    privacy: 2',
      '    password: a-secret-password',
      '  - domain: params.example.com',
      '    exclude_params: [ref]',
      '',
    ].join('\n');
    const f = await rotated('plain', manifest);
    await writeInPlace(f.keyFile, `${NEW_KEY}\n`);
    f.sim.clearRequests();
    const next = await f.resync();
    expect(next.result).toBe('success');
    expect(next.summary).toMatchObject({ update: 0, unchanged: 2 });
    expect(f.sim.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    // Recorded again with the new key (the fixture's secret for it): a daemon started with the new key
    // alone would find them known.
    const state = JSON.parse(await readFile(join(f.dir, '.websites-sync-state.json'), 'utf8'));
    const key = fingerprintKey(`test-secret:${NEW_KEY}`, state.salt);
    const recorded = Object.values(state.websites as Record<string, WebsiteState>);
    const byDomain = Object.fromEntries(recorded.map((entry) => [entry.domain, entry.fingerprints]));
    expect(byDomain).toEqual({
      'locked.example.com': {
        password: fingerprint({ key }, 'password', 'a-secret-password'),
        exclude_params: fingerprint({ key }, 'exclude_params', []),
      },
      'params.example.com': { exclude_params: fingerprint({ key }, 'exclude_params', ['ref']) },
    });
  });

  it('sends nothing more while the file still holds the refused key, and says so every run', async () => {
    const f = await rotated('plain');
    const sent = f.sim.requests.length;
    for (let i = 0; i < 3; i++) {
      const run = await f.resync();
      expect(run.result).toBe('failure');
      expect(run.reason).toBe(
        `the service refused the API key after accepting it: it was rotated or revoked, and ${f.keyFile} (--api-key-file) still holds that key: nothing was sent with it again. Write the new key into the file: the daemon reads it again before every run, no restart needed.`,
      );
    }
    // Not one more request with the refused key.
    expect(f.sim.requests.length).toBe(sent);
    expect((await readyz(f)).body).toMatch(/still holds that key/);
  });

  it('says why a new key file cannot be used, and keeps the key in use until one can', async () => {
    const f = await rotated('plain');
    await rm(f.keyFile);
    const gone = await f.resync();
    expect(gone.result).toBe('failure');
    expect(gone.reason).toBe(
      `the service refused the API key after accepting it (rotated or revoked), and the new key cannot be taken: --api-key-file: cannot read ${f.keyFile} (ENOENT). Nothing was sent; the file is read again before the next run.`,
    );
    await writeFile(f.keyFile, '\n');
    expect((await f.resync()).reason).toMatch(/the new key cannot be taken: --api-key-file: .* is empty\./);
    await writeFile(f.keyFile, `${NEW_KEY}\n`);
    expect((await f.resync()).result).toBe('success');
  });

  it('tells once that a changed file cannot be read while the key in use still works', async () => {
    const f = await startFixture({ manifest: MANIFEST, keyFile: 'plain' });
    fixture = f;
    await f.runAfter(0);
    await writeFile(f.keyFile, '');
    expect((await f.resync()).result).toBe('success');
    expect((await f.resync()).result).toBe('success');
    const told = f.logs.filter((line) => line.msg.includes('stays in use'));
    expect(told.map((line) => line.msg)).toEqual([
      `--api-key-file: ${f.keyFile} is empty; the key read before stays in use`,
    ]);
    expect(told[0]).toMatchObject({ level: 40 });
  });
});

describe('daemon: an API key rotated while the key comes from the environment', () => {
  it('says to restart the daemon: a key in the environment cannot change', async () => {
    const f = await rotated();
    expect(f.runs.at(-1)!.reason).toMatch(
      /rotated or revoked.*Restart the daemon with the new key in WEBSITES_SYNC_API_KEY: a key given in the environment is read only at start/,
    );
    const sent = f.sim.requests.length;
    expect((await f.resync()).reason).toMatch(/not sent: .*Restart the daemon with the new key/);
    expect(f.sim.requests.length).toBe(sent);
  });
});
