import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';

/** Runs the built file itself, as the installed `websites-sync` command and the image's entrypoint do. */
function runAsCommand(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(CLI, args, {
    // The shebang finds `node` on PATH: the Node running the tests.
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** The V8 options the built CLI's shebang gives Node (`#!/usr/bin/env -S node --option ...`). */
async function shebangOptions(): Promise<string[]> {
  const [shebang = ''] = (await readFile(CLI, 'utf8')).split('\n', 1);
  const options = /^#!\/usr\/bin\/env -S node(?<options>( --\S+)*)$/.exec(shebang)?.groups?.options;
  if (options === undefined) throw new Error(`not a Node shebang: ${shebang}`);
  return options.split(' ').filter(Boolean);
}

describe('the built CLI as a command', () => {
  it('runs through its shebang, which bounds V8 young generation (memory stays within a small container)', async () => {
    const result = await runAsCommand(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^websites-sync \d+\.\d+\.\d+/);
    expect(await shebangOptions()).toEqual(['--max-semi-space-size=2']);
  });

  it("keeps the code cache of Node's own modules under its shebang's options (a V8 option V8 counts in its flag hash would make every run compile them from source)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-bin-'));
    try {
      // Node's count of the built-in modules it compiled with and without their code cache, at exit.
      const report = join(dir, 'report.cjs');
      await writeFile(
        report,
        `process.on('exit', () => {
          const { internalBinding } = require('internal/test/binding');
          const usage = internalBinding('builtins').getCacheUsage();
          require('node:fs').writeSync(2, JSON.stringify({ with: [...usage.compiledWithCache], without: [...usage.compiledWithoutCache] }));
        });`,
      );
      const options = [
        ...(await shebangOptions()),
        '--expose-internals',
        '--no-warnings',
        '--require',
        report,
      ];
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [...options, CLI, '--version']);
      expect(stdout).toMatch(/^websites-sync /);
      const usage = JSON.parse(stderr) as { with: string[]; without: string[] };
      // --version loads node:crypto (the terminal-marker nonce), among others.
      expect(usage.with).toContain('crypto');
      expect(usage.without).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
