import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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

describe('the built CLI as a command', () => {
  it('runs through its shebang, which bounds V8 young generation (memory stays within a small container) and keeps the HTTP parser out of the optimizing compiler (a short run does not wait for it at exit)', async () => {
    const result = await runAsCommand(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^websites-sync \d+\.\d+\.\d+/);
    const [shebang] = (await readFile(CLI, 'utf8')).split('\n', 1);
    expect(shebang).toBe('#!/usr/bin/env -S node --max-semi-space-size=2 --wasm-tiering-budget=100000000');
  });
});
