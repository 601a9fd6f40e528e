import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// Orders that depend on the user's locale made a plan saved on one machine stale on another
// (test/e2e/locale.test.ts). The lint rule that keeps `localeCompare` out is proved here, with the
// project's own Biome configuration and plugin, on a small tree.
const root = resolve(import.meta.dirname, '../..');
const biome = join(root, 'node_modules/@biomejs/biome/bin/biome');
const dirs: string[] = [];

function lint(source: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ws-locale-lint-'));
  dirs.push(dir);
  cpSync(join(root, 'biome.json'), join(dir, 'biome.json'));
  // Biome reads the ignore file the configuration names (vcs.useIgnoreFile).
  cpSync(join(root, '.gitignore'), join(dir, '.gitignore'));
  cpSync(join(root, 'lint'), join(dir, 'lint'), { recursive: true });
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/order.ts'), source);
  const run = spawnSync(process.execPath, [biome, 'lint', 'src'], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('no order by the locale (npm run lint)', () => {
  it('refuses localeCompare, naming the comparator to use', () => {
    const { status, output } = lint(
      'export const byName = (a: string, b: string): number => a.localeCompare(b);\n',
    );
    expect(output).toContain('use compareText from src/model');
    expect(status).not.toBe(0);
  });

  it('accepts an order by code unit', () => {
    const { status, output } = lint(
      'export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);\n',
    );
    expect(output).not.toContain('compareText');
    expect(status).toBe(0);
  });
});
