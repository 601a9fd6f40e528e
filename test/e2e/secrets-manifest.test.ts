import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';
import {
  expectNoPasswordText,
  manifestWithPassword,
  UNREADABLE_PASSWORDS,
} from '../helpers/unreadable-passwords.js';

// A password written unquoted with YAML syntax fails to parse, so the redactor never learns it: the
// message about it must not quote it (issue 10 §4).
let simulator: Simulator;
let dir: string;

beforeAll(async () => {
  simulator = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-secrets-manifest-'));
});

afterAll(async () => {
  await simulator.close();
});

describe('a password YAML cannot read as written', () => {
  it.each(UNREADABLE_PASSWORDS)('%s: validate names its line, never its text', async (_name, password) => {
    const file = join(dir, 'websites.yaml');
    await writeFile(file, manifestWithPassword(password));
    const run = await runCli(['validate', '-f', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file}:5:15: error: websites[0].password: `);
    expect(run.stderr).toMatch(/quote|reference/);
    expectNoPasswordText(run.stdout + run.stderr, password);
  });

  it.each(UNREADABLE_PASSWORDS)(
    '%s: a run refuses it the same way, with pretty and JSON logs',
    async (_name, password) => {
      await writeFile(join(dir, 'websites.yaml'), manifestWithPassword(password));
      simulator.clearRequests();
      for (const format of ['pretty', 'json']) {
        const run = await runCli(['--once', '--log-format', format], {
          ...toolEnv(simulator, dir),
          WEBSITES_SYNC_LOG_LEVEL: 'debug',
        });
        expect(run.code).toBe(1);
        expect(run.stdout + run.stderr).toMatch(/websites\.yaml:5:15: error: websites\[0\]\.password: /);
        expectNoPasswordText(run.stdout + run.stderr, password);
      }
      expect(simulator.requests).toEqual([]);
    },
  );
});
