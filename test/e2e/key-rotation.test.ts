import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// The fingerprints of write-only fields are keyed by the API key: after a rotation (the key regenerated
// in the service's web interface) none matches under the new key. Given the key before it, a run still
// recognises them, resends nothing, and a real run records them again under the new key.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

const OLD_KEY = 'the-key-before-the-rotation';
const NEW_KEY = 'the-key-after-the-rotation';
const manifest = (password: string) =>
  [
    'version: 1',
    'websites:',
    '  - domain: locked.example.com',
    '    privacy: 2',
    `    password: ${password}`,
    '  - domain: params.example.com',
    '    exclude_params: [ref, utm_source]',
    '',
  ].join('\n');

beforeEach(async () => {
  simulator = await startSimulator({ apiKey: OLD_KEY });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-rotation-'));
  env = toolEnv(simulator, dir);
  await writeFile(join(dir, 'websites.yaml'), manifest('first-secret-password'));
  const applied = await runCli(['--once'], env);
  expect(applied.code).toBe(0);
  // Rotated: the old key ends, the new one is the only one the service takes.
  simulator.setApiKey(NEW_KEY);
  simulator.clearRequests();
  await writeFile(join(dir, 'old.key'), `${OLD_KEY}\n`);
});

afterEach(async () => {
  await simulator.close();
});

const writes = () => simulator.requests.filter((r) => r.method !== 'GET');
const newKey = () => ({ ...env, WEBSITES_SYNC_API_KEY: NEW_KEY });
const withOld = () => ({ ...newKey(), WEBSITES_SYNC_PREVIOUS_API_KEY_FILE: join(dir, 'old.key') });

describe('a rotated API key', () => {
  it('alone, the fingerprints are unknown: every write-only field would be sent again', async () => {
    const plan = await runCli(['--once', '--dry-run', '--detailed-exitcode'], newKey());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('locked.example.com');
    expect(plan.stdout).toContain('params.example.com');
  });

  it('with the key before it, nothing changes, nothing is sent, and one real run re-records', async () => {
    const plan = await runCli(['--once', '--dry-run', '--detailed-exitcode'], withOld());
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('update');
    const stateBefore = await readFile(join(dir, 'state.json'), 'utf8');
    const applied = await runCli(['--once'], withOld());
    expect(applied.code).toBe(0);
    expect(writes()).toEqual([]);
    // Re-recorded under the new key: the fingerprints changed, the old key is in no form in the file.
    const stateAfter = await readFile(join(dir, 'state.json'), 'utf8');
    expect(stateAfter).not.toBe(stateBefore);
    expect(stateAfter).not.toContain(OLD_KEY);
    expect(stateAfter).not.toContain('previous');
    // The key before is needed no more.
    const alone = await runCli(['--once', '--dry-run', '--detailed-exitcode'], newKey());
    expect(alone.code).toBe(0);
    expect(writes()).toEqual([]);
  });

  it('a password changed at the same time as the rotation is still sent', async () => {
    await writeFile(join(dir, 'websites.yaml'), manifest('second-secret-password'));
    const plan = await runCli(['--once', '--dry-run', '--detailed-exitcode'], withOld());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('locked.example.com');
    expect(plan.stdout).not.toContain('params.example.com');
    const applied = await runCli(['--once'], withOld());
    expect(applied.code).toBe(0);
    expect(writes().map((r) => [r.method, r.path])).toEqual([
      [expect.stringMatching(/PUT|PATCH/), expect.stringContaining('/api/v1/websites/')],
    ]);
    expect(simulator.listWebsites().find((w) => w.domain === 'locked.example.com')?.password).toBe(
      'second-secret-password',
    );
    // The previous key is never sent to the service, nor shown.
    expect(simulator.requests.every((r) => !JSON.stringify(r).includes(OLD_KEY))).toBe(true);
    expect(applied.stdout + applied.stderr).not.toContain(OLD_KEY);
  });
});

describe('the key before a rotation, as an option', () => {
  it('is never taken on the command line, and never shown', async () => {
    const run = await runCli(['--once', '--dry-run', `--previous-api-key=${OLD_KEY}`], newKey());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      '--previous-api-key: the API key is never accepted on the command line (it would show in `ps` and shell history); set WEBSITES_SYNC_PREVIOUS_API_KEY or use --previous-api-key-file',
    );
    expect(run.stderr + run.stdout).not.toContain(OLD_KEY);
  });

  it('from WEBSITES_SYNC_PREVIOUS_API_KEY as from its file; the file wins, and the run says so', async () => {
    const fromEnv = await runCli(['--once', '--dry-run', '--detailed-exitcode'], {
      ...newKey(),
      WEBSITES_SYNC_PREVIOUS_API_KEY: OLD_KEY,
    });
    expect(fromEnv.code).toBe(0);
    const both = await runCli(['--once', '--dry-run', '--detailed-exitcode'], {
      ...withOld(),
      WEBSITES_SYNC_PREVIOUS_API_KEY: 'some-other-key',
    });
    expect(both.code).toBe(0);
    expect(both.stderr).toContain(
      `both WEBSITES_SYNC_PREVIOUS_API_KEY and the key file ${join(dir, 'old.key')} are set; the key file wins`,
    );
    expect(both.stderr).not.toContain('some-other-key');
  });
});
