import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// The architecture checker guards every later change, so prove it fails on each kind of wrong import
// (and passes on a clean tree) by running it, with the project's own rule file, on small trees.
const root = resolve(import.meta.dirname, '../..');
const cruiser = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const dirs: string[] = [];

function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ws-arch-'));
  dirs.push(dir);
  copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(
    process.execPath,
    [cruiser, '--config', join(root, '.dependency-cruiser.cjs'), 'src'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  return { status: run.status, output: run.stdout + run.stderr };
}

const clean = {
  'src/model/index.ts': 'export const kernel = 1;\n',
  'src/service/http.ts': "import { kernel } from '../model/index.js';\nexport const http = kernel;\n",
  'src/service/index.ts': "export { http } from './http.js';\n",
  'src/plan/index.ts': "import { http } from '../service/index.js';\nexport const plan = http;\n",
  'src/cli/main.ts': "import { plan } from '../plan/index.js';\nexport const main = plan;\n",
};

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the architecture rules (npm run lint)', () => {
  it('pass on a tree whose stages meet only through their doors', () => {
    const { status, output } = cruise(clean);
    expect(output).toContain('no dependency violations');
    expect(status).toBe(0);
  });

  it.each([
    [
      'stage-door',
      { 'src/plan/index.ts': "import { http } from '../service/http.js';\nexport const plan = http;\n" },
    ],
    [
      'no-cycle',
      {
        'src/service/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
        'src/service/b.ts': "import type { A } from './a.js';\nexport type B = A | 1;\n",
      },
    ],
    [
      'no-upstream',
      { 'src/plan/up.ts': "import { main } from '../cli/main.js';\nexport const up = main;\n" },
    ],
    [
      'plan-is-pure',
      { 'src/plan/io.ts': "import { readFileSync } from 'node:fs';\nexport const io = readFileSync;\n" },
    ],
    [
      'simulator-only-from-cli',
      {
        'src/simulator/index.ts': 'export const sim = 1;\n',
        'src/daemon/index.ts': "import { sim } from '../simulator/index.js';\nexport const d = sim;\n",
      },
    ],
    [
      'front-doors-on-top',
      {
        'src/cli/index.ts': "export { main } from './main.js';\n",
        'src/daemon/index.ts': "import { main } from '../cli/index.js';\nexport const d = main;\n",
      },
    ],
    [
      'cli-stands-apart-from-action',
      {
        'src/action/index.ts': 'export const action = 1;\n',
        'src/cli/run.ts': "import { action } from '../action/index.js';\nexport const r = action;\n",
      },
    ],
    [
      'kernel-stands-alone',
      { 'src/model/index.ts': "import { http } from '../service/index.js';\nexport const kernel = http;\n" },
    ],
  ])('fail on a deliberately wrong import: %s', (rule, files) => {
    const { status, output } = cruise({ ...clean, ...files });
    expect(output).toContain(`error ${rule}:`);
    expect(status).not.toBe(0);
  });
});
