import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, startCli } from '../helpers/cli.js';

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
    const { stdout, usage } = await withCacheUsage(['--version'], {});
    expect(stdout).toMatch(/^websites-sync /);
    // --version loads node:crypto (the terminal-marker nonce), among others.
    expect(usage.with).toContain('crypto');
    expect(usage.without).toEqual([]);
    expect(usage.optionsSet).toBe(false);
  });

  it("loads none of the parts of Node's built-in modules it does not use (reading every export of node:util would load worker_threads and its diff at every start)", async () => {
    const { stdout, usage } = await withCacheUsage(['--version'], {});
    expect(stdout).toMatch(/^websites-sync /);
    const loaded = [...usage.with, ...usage.without];
    // What it does use of node:util: its parser of arguments.
    expect(loaded).toContain('internal/util/parse_args/parse_args');
    expect(loaded).not.toContain('worker_threads');
    expect(loaded).not.toContain('internal/util/diff');
  });

  it('keeps the code cache of node:tls for an https:// service, which its client loads only when it connects, after the run has set its V8 options', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-bin-'));
    try {
      await writeFile(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: example.com\n');
      // Nothing listens on port 1: the run connects (loading node:tls), is refused and ends.
      const env = {
        WEBSITES_SYNC_BASE_URL: 'https://127.0.0.1:1',
        WEBSITES_SYNC_API_KEY: 'test-key',
        WEBSITES_SYNC_MANIFEST: join(dir, 'websites.yaml'),
        WEBSITES_SYNC_STATE_FILE: join(dir, 'state.json'),
      };
      const { code, stderr, usage } = await withCacheUsage(['--once', '--dry-run', '--timeout', '1s'], env);
      expect(code).not.toBe(0);
      expect(stderr).toContain('ECONNREFUSED');
      expect(usage.optionsSet).toBe(true);
      expect(usage.with).toContain('tls');
      expect(usage.without).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

/**
 * Runs the built CLI under its shebang's options and reports which of Node's built-in modules it
 * compiled with their code cache and which from source. The report's own module, loaded at exit, is
 * left out; whether it was compiled from source says whether the run had set V8 options by then.
 */
async function withCacheUsage(
  args: string[],
  env: Record<string, string>,
): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
  usage: { with: string[]; without: string[]; optionsSet: boolean };
}> {
  const dir = await mkdtemp(join(tmpdir(), 'websites-sync-cache-'));
  try {
    const report = join(dir, 'report.cjs');
    await writeFile(
      report,
      `process.on('exit', () => {
        const { internalBinding } = require('internal/test/binding');
        const usage = internalBinding('builtins').getCacheUsage();
        const report = 'internal/test/binding';
        const without = [...usage.compiledWithoutCache].filter((name) => name !== report);
        const optionsSet = [...usage.compiledWithoutCache].includes(report);
        require('node:fs').writeSync(2, '\\ncache usage: ' + JSON.stringify({ with: [...usage.compiledWithCache], without, optionsSet }));
      });`,
    );
    const options = [...(await shebangOptions()), '--expose-internals', '--no-warnings', '--require', report];
    const { code, stdout, stderr } = await startCli(args, env, [], undefined, options).done;
    const [before, report_] = stderr.split('\ncache usage: ');
    if (report_ === undefined) throw new Error(`no cache usage reported; stderr: ${stderr}`);
    return {
      code,
      stdout,
      stderr: before ?? '',
      usage: JSON.parse(report_) as { with: string[]; without: string[]; optionsSet: boolean },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
