import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/args.js';
import { jsonOutputSchema } from '../../src/cli/json-output-schema.js';
import { runCli } from '../helpers/cli.js';

// The docs a newcomer walks: every page reachable, every link and anchor landing somewhere, and every
// websites-sync command they show accepted by the CLI as written.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
  const headings = [...prose(read(page)).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? ''));
  return new Set(headings);
}

/** Relative links of a page: `[text](target)`, outside code. */
function linksOf(page: string): string[] {
  return [...prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('the docs', () => {
  it.each(PAGES)('%s: every relative link and anchor lands on something that exists', (page) => {
    const broken: string[] = [];
    for (const target of linksOf(page)) {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : normalize(join(dirname(page), path));
      if (!existsSync(join(ROOT, file))) broken.push(`${target} (no ${file})`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor))
        broken.push(`${target} (no heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('reaches every page of docs/ from the README, through the index', () => {
    const index = linksOf('docs/README.md').map((target) =>
      normalize(join('docs', target.split('#')[0] ?? '')),
    );
    const unlinked = PAGES.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md').filter(
      (page) => !index.includes(page),
    );
    expect(linksOf('README.md')).toContain('docs/README.md');
    expect(unlinked).toEqual([]);
  });

  it('holds reference tables generated from the code as it is (npm run docs rewrites them)', () => {
    const check = spawnSync(process.execPath, ['scripts/generate-docs.mjs', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('keeps the README a first screen', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(170);
  });
});

/** Each `websites-sync …` command of a shell block, joined across `\` line ends, without its comment. */
function commandsOf(page: string): string[] {
  const blocks = [...read(page).matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
  return (
    blocks
      .flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'))
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .flatMap((line) => line.split(/\s*(?:&&|\|\||;|\|)\s*/))
      // `docker build -t websites-sync .` names the image; `docker run … websites-sync ARGS` passes ARGS.
      .filter((part) => !/^docker (?:build|compose)/.test(part))
      .map((part) => /^(?:.*\s)?websites-sync(\s.*)?$/.exec(part))
      .filter((match) => match !== null)
      .map((match) => (match[1] ?? '').trim())
      .filter((args): args is string => args !== undefined && !args.startsWith('simulator'))
      .map((args) => args.replace(/\s*[<>].*$/, ''))
  );
}

/** Shell words, with quotes removed (the docs' commands use no escapes inside quotes). */
function words(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

const ENV = { WEBSITES_SYNC_BASE_URL: 'https://stats.example.com', WEBSITES_SYNC_API_KEY: 'key' };

describe('the commands the docs show', () => {
  const shown = PAGES.flatMap((page) => commandsOf(page).map((args): [string, string] => [page, args]));

  it('finds them', () => {
    expect(shown.length).toBeGreaterThanOrEqual(15);
  });

  it.each(shown)('%s: websites-sync %s is accepted as written', (_page, args) => {
    expect(() =>
      parseConfig(
        words(args).filter((w) => w !== '...' && w !== '…'),
        ENV,
      ),
    ).not.toThrow();
  });
});

describe("the manifest reference's sample", () => {
  it('is what validate prints for the manifest it describes', async () => {
    const page = read('docs/reference/manifest.md');
    const sample = /^\$ websites-sync validate -f websites\.yaml\n([\s\S]*?)^```/m.exec(page)?.[1];
    expect(sample).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), 'websites-sync-docs-'));
    // The two mistakes the sample shows, where it shows them (4:5 and 6:14).
    const manifest = [
      'version: 1',
      'websites:',
      '  - domain: a.example.com',
      '    exlude_ips: []',
      '  - domain: b.example.com',
      '    privacy: secret',
    ];
    await writeFile(join(dir, 'websites.yaml'), `${manifest.join('\n')}\n`);
    const run = await runCli(['validate', '-f', 'websites.yaml'], {}, dir);
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toBe(sample);
  });
});

describe("the JSON plan reference's example", () => {
  it('is a plan the output schema accepts, strictly: every key it requires is shown', () => {
    const example = /```json\n([\s\S]*?)\n```/.exec(read('docs/reference/json-plan.md'))?.[1] ?? '';
    const checked = jsonOutputSchema.safeParse(JSON.parse(example));
    expect(checked.error?.issues ?? []).toEqual([]);
  });
});
