import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimulatorCommand } from '../../src/cli/commands/simulator.js';

function capture(): { write(text: string): void; text: () => string; line: Promise<string> } {
  let text = '';
  let resolveLine: (line: string) => void = () => {};
  const line = new Promise<string>((resolve) => {
    resolveLine = resolve;
  });
  return {
    write(chunk: string) {
      text += chunk;
      if (text.includes('\n')) resolveLine(text.split('\n')[0] ?? '');
    },
    text: () => text,
    line,
  };
}

describe('websites-sync simulator', () => {
  it('prints help and exits 0', async () => {
    const stdout = capture();
    expect(await runSimulatorCommand(['--help'], { stdout })).toBe(0);
    expect(stdout.text()).toContain('Usage: websites-sync simulator');
  });

  it.each([
    [['--bogus'], '--bogus'],
    [['--error-rate', '2'], '--error-rate'],
    [['--login-redirect-rate', '-1'], '--login-redirect-rate'],
    [['--throttle-rate', 'x'], '--throttle-rate'],
    [['--hang-rate', '1.5'], '--hang-rate'],
    [['--rate-limit', 'sixty'], '--rate-limit'],
    [['--list-shape', 'table'], '--list-shape'],
    [['--port', '99999'], '--port'],
    [['--seed-file', '/nonexistent/seed.json'], '--seed-file'],
  ])('refuses %j with a message naming the option, exit 1', async (argv, name) => {
    const stderr = capture();
    expect(await runSimulatorCommand(argv, { stderr })).toBe(1);
    expect(stderr.text()).toContain(name);
  });

  it('serves the seeded account with the given options until stopped, then exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simulator-cli-'));
    try {
      const seedFile = join(dir, 'seed.json');
      await writeFile(seedFile, JSON.stringify([{ domain: 'seeded.example', exclude_ips: ['10.0.0.1'] }]));
      const stdout = capture();
      const stop = new AbortController();
      const argv = [
        '--port',
        '0',
        '--seed-file',
        seedFile,
        '--rate-limit',
        '5/60',
        '--list-shape',
        'paginator',
      ];
      const exit = runSimulatorCommand(argv, {
        stdout,
        signal: stop.signal,
        env: { SIMULATOR_API_KEY: 'env-key' },
      });

      const line = await stdout.line;
      const match = /^simulator listening on (http:\/\/127\.0\.0\.1:\d+) \(api key: env-key\)$/.exec(line);
      expect(match).not.toBeNull();
      const response = await fetch(`${match?.[1]}/api/v1/websites`, {
        headers: { Authorization: 'Bearer env-key', Accept: 'application/json' },
      });
      const body = (await response.json()) as { total: number; data: Array<{ domain: string }> };
      expect(response.headers.get('x-ratelimit-limit')).toBe('5');
      expect(body.total).toBe(1);
      expect(body.data[0]?.domain).toBe('seeded.example');

      stop.abort();
      expect(await exit).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves the login redirect and throttle faults from its command line', async () => {
    for (const [flag, status] of [
      ['--login-redirect-rate', 302],
      ['--throttle-rate', 429],
    ] as const) {
      const stdout = capture();
      const stop = new AbortController();
      const exit = runSimulatorCommand(['--port', '0', flag, '1'], { stdout, signal: stop.signal, env: {} });
      const url = /listening on (\S+) /.exec(await stdout.line)?.[1];
      const response = await fetch(`${url}/api/v1/websites`, {
        headers: { Authorization: 'Bearer test-key', Accept: 'application/json' },
        redirect: 'manual',
      });
      await response.arrayBuffer();
      expect(response.status, flag).toBe(status);
      stop.abort();
      expect(await exit).toBe(0);
    }
  });
});
