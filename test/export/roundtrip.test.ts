// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { describe, expect, it } from 'vitest';
import { exportManifest } from '../../src/export/index.js';
import { parseManifest } from '../../src/manifest/index.js';
import { type RemoteWebsite, serviceAcceptsDomain } from '../../src/model/index.js';
import { computePlan } from '../../src/plan/index.js';
import { emptyState } from '../../src/state/index.js';
import { remoteSite } from '../helpers/builders.js';
import { prng } from '../helpers/www-names.js';

// Whatever the account holds, `export` writes a manifest that means the account again (audit 2, D2,
// D3): read back (interpolation included, with variables of those names set), it is valid, every
// record is managed as it is or kept as a twin, and a plan with prune on changes nothing.
const OPTIONS = { baseUrl: 'https://stats.example.com', version: '1', now: new Date(0) };

// Pieces a name can hold that YAML, interpolation, globs or the identity read specially.
const PIECES = [
  '${X}',
  '${x:-d}',
  '$${',
  '$$',
  '$',
  '{',
  '}',
  '"',
  "'",
  '#',
  ' #',
  ': ',
  ':',
  '- ',
  '? ',
  '*',
  '[a]',
  '\\',
  '/',
  '?',
  '&',
  '!',
  '%',
  '@',
  ' ',
  '\t',
  '\u00a0',
  '\u2028',
  'ü',
  'Ä',
  'a',
  'b',
  'w',
  '.',
  '.',
  '_',
  '-',
  '1',
];
const PREFIXES = ['', '', '', 'www.', 'WWW.', 'https://', 'http://www.', 'ftp://', '- ', '${X}.'];
const TAILS = ['.example.com', '.example.org', '.com.', '.1.', '.x-1', '/index.html', '.example.com.'];

function names(random: () => number, count: number): string[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const result: string[] = [];
  while (result.length < count) {
    let body = '';
    for (let n = 1 + Math.floor(random() * 4); n > 0; n--) body += pick(PIECES);
    const name = `${pick(PREFIXES)}${body}${pick(TAILS)}`;
    // A record the service can hold: a name its rule accepts, as stored (no surrounding spaces).
    if (name.trim() === name && serviceAcceptsDomain(name)) result.push(name);
  }
  return result;
}

/** An account: generated names, some also stored in another spelling of the same identity. */
function account(random: () => number): RemoteWebsite[] {
  const base = names(random, 1 + Math.floor(random() * 6));
  const spellings = base.flatMap((name) =>
    random() < 0.3 ? [name, random() < 0.5 ? name.toUpperCase() : `www.${name}`] : [name],
  );
  return (
    spellings
      .filter((name) => serviceAcceptsDomain(name))
      // Some keep a password from an earlier privacy 2 (the service keeps it when privacy changes).
      .map((name, index) =>
        remoteSite(index + 1, name, { privacy: index % 3 === 0 ? 0 : 1, hasPassword: index % 4 === 1 }),
      )
  );
}

describe('export → validate → plan', () => {
  it('means the account again, with prune on, for generated record names', () => {
    const random = prng(20);
    for (let run = 0; run < 400; run++) {
      const records = account(random);
      const { text } = exportManifest(records, OPTIONS);
      const parsed = parseManifest(text.replace(/^prune: false/m, 'prune: true'), {
        file: 'websites.yaml',
        env: { X: 'foo', x: 'foo' },
      });
      const errors = parsed.problems.filter((p) => p.severity === 'error').map((p) => p.message);
      const domains = records.map((r) => r.domain);
      expect({ domains, errors }).toEqual({ domains, errors: [] });
      const plan = computePlan({
        desired: parsed.desired!,
        current: records,
        state: emptyState('https://stats.example.com'),
        prune: true,
      });
      // Only write-only fields the service never returns are resent (the state is empty).
      const changes = plan.changes.filter((c) => c.kind !== 'update' || c.fields.some((f) => !f.unknown));
      expect({ domains, text, changes }).toEqual({ domains, text, changes: [] });
      const patterns = plan.warnings.filter((w) => w.startsWith('ignore pattern'));
      expect({ domains, patterns }).toEqual({ domains, patterns: [] });
      // A record called a twin is one of a website the manifest lists.
      const listed = new Set(parsed.desired!.websites.map((w) => w.domain));
      const twins = [...text.matchAll(/the same as ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]!));
      expect(twins.filter((twin) => !listed.has(twin))).toEqual([]);
      expect({ domains, unmanaged: plan.unmanaged, pending: plan.pendingDeletes }).toEqual({
        domains,
        unmanaged: [],
        pending: [],
      });
    }
  });
});
