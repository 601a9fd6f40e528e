import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, toolEnv } from '../helpers/cli.js';

// Backups before every delete, and `restore` (issue 13 §5), from the built CLI.
let simulator: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  simulator = await startSimulator({
    websites: [
      { domain: 'keep.example.com' },
      { domain: 'old.example.com', privacy: 0, email: true, exclude_ips: ['203.0.113.7'] },
      { domain: 'shop.example.com', privacy: 2, password: 'shop-secret-pw' },
    ],
  });
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-backup-'));
  await writeFile(
    join(dir, 'websites.yaml'),
    'version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n',
  );
  env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
});

afterEach(async () => {
  await simulator.close();
});

describe('backups before deletes', () => {
  it('writes each deleted website to the backup file before its DELETE is sent, mode 0600, no secret', async () => {
    const backup = join(dir, '.websites-sync-deleted.jsonl');
    const seenAtDelete: string[] = [];
    simulator.onRequest = (req) => {
      if (req.method === 'DELETE') seenAtDelete.push(existsSync(backup) ? readFileSync(backup, 'utf8') : '');
    };
    const run = await runCli(['--once'], env);
    expect(run.code, run.stdout).toBe(0);
    expect(seenAtDelete).toHaveLength(2);
    expect(seenAtDelete[0]).toMatch(/"domain":"(old|shop)\.example\.com"/);
    expect(seenAtDelete[1]).toMatch(
      /old\.example\.com[\s\S]*shop\.example\.com|shop\.example\.com[\s\S]*old\.example\.com/,
    );
    expect((await stat(backup)).mode & 0o777).toBe(0o600);
    const text = readFileSync(backup, 'utf8');
    expect(text).not.toContain('shop-secret-pw');
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ exclude_params: 'unknown' });

    const restored = await runCli(['restore', 'old.example.com'], env);
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain('statistics are not restorable');
    expect(restored.stdout).toContain('domain: old.example.com');
    await writeFile(join(dir, 'restored.yaml'), restored.stdout);
    const validate = await runCli(['validate', '-f', join(dir, 'restored.yaml')], {
      SHOP_EXAMPLE_COM_PASSWORD: 'x',
    });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);

    const all = await runCli(['restore'], env);
    expect(all.stdout).toMatch(/domain: shop\.example\.com[\s\S]*password: \$\{/);
  });

  it('keeps an existing backup file readable by its owner only: a 0644 file becomes 0600, its lines kept', async () => {
    const backup = join(dir, '.websites-sync-deleted.jsonl');
    const earlier = `${JSON.stringify({ domain: 'earlier.example.com', id: 1, base_url: simulator.url })}\n`;
    await writeFile(backup, earlier, { mode: 0o644 });
    await chmod(backup, 0o644);
    const run = await runCli(['--once'], env);
    expect(run.code, run.stdout).toBe(0);
    expect((await stat(backup)).mode & 0o777).toBe(0o600);
    const lines = readFileSync(backup, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(earlier.trim());
  });

  it('sends no DELETE when the backup cannot be written', async () => {
    // A directory there is refused before the run (option-errors.test.ts); a missing one is met only
    // when the first delete's backup is written.
    const run = await runCli(['--once', '--backup-file', join(dir, 'no-such-dir', 'backups.jsonl')], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /✗ delete old\.example\.com: not deleted: its backup could not be written \(ENOENT\)/,
    );
    expect(simulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(simulator.listWebsites()).toHaveLength(3);
  });
});

describe('restore DOMAIN', () => {
  it('finds a backed-up website however its domain is written, as a manifest entry would be', async () => {
    await simulator.close();
    simulator = await startSimulator({
      websites: [
        { domain: 'keep.example.com' },
        { domain: 'pw.example.com', privacy: 1 },
        { domain: 'xn--bcher-kva.example', email: true },
      ],
    });
    env = { ...toolEnv(simulator, dir), WEBSITES_SYNC_LOG_LEVEL: 'warn' };
    expect((await runCli(['--once'], env)).code).toBe(0);

    for (const written of [
      'PW.EXAMPLE.COM',
      'https://pw.example.com/',
      'pw.example.com.',
      'www.pw.example.com',
    ]) {
      const run = await runCli(['restore', written], env);
      expect(run.code, `${written}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('domain: pw.example.com');
      expect(run.stdout).not.toContain('xn--bcher-kva.example');
    }
    // Two spellings of one website at once are one request: one entry, no "no backup".
    const both = await runCli(['restore', 'pw.example.com', 'www.pw.example.com'], env);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout.match(/domain: pw\.example\.com/g)).toHaveLength(1);
    const idn = await runCli(['restore', 'Bücher.example'], env);
    expect(idn.code, idn.stderr).toBe(0);
    expect(idn.stdout).toContain('domain: xn--bcher-kva.example');

    const bad = await runCli(['restore', 'not a domain'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('restore: "not a domain"');
  });

  it('names the lines of the backup file it cannot read, and still restores the others', async () => {
    expect((await runCli(['--once'], env)).code).toBe(0);
    const backup = join(dir, '.websites-sync-deleted.jsonl');
    const [first, second] = readFileSync(backup, 'utf8').trim().split('\n') as [string, string];
    // A crash cut the first line short; someone wrote a line of their own.
    await writeFile(backup, `${first.slice(0, 60)}\ngarbage\n${second}\n`);
    const restored = await runCli(['restore'], env);
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain(`${backup}: line(s) 1, 2 hold no readable backup`);
    expect(restored.stdout).toContain(`domain: ${JSON.parse(second).domain}`);

    await writeFile(backup, 'x\n');
    const nothing = await runCli(['restore'], env);
    expect(nothing.stderr).toContain('line(s) 1 hold no readable backup');
    expect(nothing.stderr).toContain('holds no deleted website');
  });

  it('says its output is the websites in the backup, not the account as it is now', async () => {
    expect((await runCli(['--once'], env)).code).toBe(0);
    const run = await runCli(['restore'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('of the account as they are now');
    expect(run.stdout).toMatch(
      /the 2 deleted website\(s\) in the backup file .*\.websites-sync-deleted\.jsonl/,
    );
  });
});
