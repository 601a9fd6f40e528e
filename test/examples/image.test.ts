import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// Issue 23 §1: CI rehearses the image build without a Docker engine (scripts/rehearse-image.mjs, run in
// full by .ci/run). Here: the rehearsal passes on the repository, and fails on the two mistakes that
// broke the image unnoticed (a .dockerignore that leaves out what the Dockerfile copies, a COPY of a
// file that does not exist) and on an install script that downloads a second Node.

const repo = fileURLToPath(new URL('../..', import.meta.url));
const script = join(repo, 'scripts/rehearse-image.mjs');
const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(repo, '.dockerignore'), 'utf8');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A build context holding a placeholder for every path the repository's Dockerfile copies. */
function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'websites-sync-image-test-'));
  dirs.push(dir);
  const placeholders = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
  for (const p of [...placeholders, 'scripts/bundle.mjs', 'scripts/undici-lite.cjs', 'scripts/demo.mjs']) {
    files[p] ??= '{}';
  }
  files['src/cli/main.ts'] ??= '';
  files['schema/websites.schema.json'] ??= '{}';
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

function rehearse(context: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [script, '--context', context, ...args], { encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

describe('the image rehearsal', () => {
  it('finds every COPY source of the repository in its build context', () => {
    const r = rehearse(repo, '--check-only');
    expect(r.output).toContain('every COPY source');
    expect(r.status).toBe(0);
  });

  it('fails when .dockerignore leaves out a directory the Dockerfile copies (the scripts/ of 2026-11-24)', () => {
    const broken = `${dockerignore}\nscripts\n`;
    const r = rehearse(fixture({ Dockerfile: dockerfile, '.dockerignore': broken }), '--check-only');
    expect(r.output).toMatch(/Dockerfile:\d+: COPY scripts: left out of the build context by \.dockerignore/);
    expect(r.status).toBe(1);
  });

  it('fails when a COPY names a file that does not exist', () => {
    const withTypo = dockerfile.replace('COPY tsconfig.json', 'COPY tsconfig.jsn');
    const r = rehearse(fixture({ Dockerfile: withTypo, '.dockerignore': dockerignore }), '--check-only');
    expect(r.output).toMatch(/Dockerfile:\d+: COPY tsconfig\.jsn: not in the build context \(no such file\)/);
    expect(r.status).toBe(1);
  });

  it('follows Docker: `!` brings back a path under an excluded directory, `**` matches at any depth', () => {
    const ignore = '*\n!keep/deep/file.txt\n!src\nsrc/**/*.test.ts\n';
    const copy = 'FROM node:24-slim\nCOPY keep/deep/file.txt src ./\nCOPY src/a/b.test.ts ./\n';
    const dir = fixture({
      Dockerfile: copy,
      '.dockerignore': ignore,
      'keep/deep/file.txt': '',
      'src/a/b.test.ts': '',
    });
    const r = rehearse(dir, '--check-only');
    expect(r.output).toMatch(/Dockerfile:3: COPY src\/a\/b\.test\.ts: left out/);
    expect(r.output).not.toContain('keep/deep/file.txt');
  });

  it.runIf(process.getuid?.() === 0)('fails when a stage ends up with a second Node', () => {
    const secondNode =
      'FROM node:24-slim\nWORKDIR /app\nRUN mkdir -p node_modules/node/bin && touch node_modules/node/bin/node\n';
    const r = rehearse(fixture({ Dockerfile: secondNode, '.dockerignore': '' }));
    expect(r.output).toContain('/app/node_modules/node/bin/node is a second Node');
    expect(r.status).toBe(1);
  });
});
