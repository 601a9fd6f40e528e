import { spawn, spawnSync } from 'node:child_process';
import { CLI } from './cli.js';

// The built CLI on a real terminal: it runs under `script`, which gives it a pseudo-terminal for stdout
// and stderr, as a person at a terminal has; the test gets every byte the terminal got.

export const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/** The CLI on a pseudo-terminal: everything it wrote, stdout and stderr as the terminal got them. */
export function runOnTerminal(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; raw: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', TERM: 'xterm', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, raw }));
  });
}
