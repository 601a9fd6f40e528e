// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { describe, expect, it } from 'vitest';
import { SERVICE_CREATE_DEFAULTS, type WebsiteSettings } from '../../src/model/index.js';
import { parseLines } from './helpers.js';

function settingsOf(lines: string[]): WebsiteSettings & { password?: string } {
  const result = parseLines(lines, { PW: 'from-env' });
  expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
  const {
    domain: _domain,
    location: _location,
    undeclared: _undeclared,
    ...settings
  } = result.desired!.websites[0]!;
  return settings;
}

// Issue 19 §10: what the manifest leaves to the service's default is known, so a write-only field
// the manifest never declared (and websites-sync never sent) is not sent as that default.
describe('undeclared settings', () => {
  it('lists what neither the entry nor defaults write', () => {
    const undeclared = (defaults: string[], own: string[]) =>
      parseLines(manifest(defaults, own)).desired!.websites[0]!.undeclared;
    expect(undeclared([], [])).toEqual(['privacy', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips']);
    expect(undeclared(['exclude_params: []'], ['privacy: public', 'email: true'])).toEqual([
      'exclude_bots',
      'exclude_ips',
    ]);
    expect(
      undeclared(['exclude_bots: true'], ['privacy: 1', 'email: 0', 'exclude_params: x', 'exclude_ips: []']),
    ).toBeUndefined();
  });
});

const manifest = (defaults: string[], own: string[]): string[] => [
  'version: 1',
  ...(defaults.length > 0 ? ['defaults:', ...defaults.map((line) => `  ${line}`)] : []),
  'websites:',
  '  - domain: example.com',
  ...own.map((line) => `    ${line}`),
];

describe('effective values: own, else defaults, else the service default', () => {
  it.each([
    { name: 'nothing set: the service create defaults', defaults: [], own: [], expected: {} },
    {
      name: 'defaults apply',
      defaults: ['privacy: public', 'email: true', 'exclude_bots: false', 'exclude_ips: [203.0.113.7]'],
      own: [],
      expected: { privacy: 0, email: true, exclude_bots: false, exclude_ips: ['203.0.113.7'] },
    },
    {
      name: 'own values win over defaults',
      defaults: ['privacy: public', 'email: true', 'exclude_params: [a]'],
      own: ['privacy: private', 'email: false', 'exclude_params: [b]'],
      expected: { privacy: 1, email: false, exclude_params: ['b'] },
    },
    {
      name: 'an empty own list overrides a default list',
      defaults: ['exclude_ips: [203.0.113.7]'],
      own: ['exclude_ips:'],
      expected: { exclude_ips: [] },
    },
    {
      name: 'codes are accepted for privacy and booleans',
      defaults: [],
      own: ['privacy: 0', 'email: 1', 'exclude_bots: 0'],
      expected: { privacy: 0, email: true, exclude_bots: false },
    },
    {
      name: 'interpolated strings are accepted for privacy and booleans',
      defaults: [],
      own: ['privacy: "${P:-2}"', 'password: ${PW}', 'email: "${E:-true}"'],
      expected: { privacy: 2, password: 'from-env', email: true },
    },
    {
      name: 'a default password applies to a website whose privacy is password',
      defaults: ['password: ${PW}'],
      own: ['privacy: password'],
      expected: { privacy: 2, password: 'from-env' },
    },
    {
      name: 'a default privacy password with the website own password',
      defaults: ['privacy: password'],
      own: ['password: own-secret'],
      expected: { privacy: 2, password: 'own-secret' },
    },
  ])('$name', ({ defaults, own, expected }) => {
    expect(settingsOf(manifest(defaults, own))).toEqual({ ...SERVICE_CREATE_DEFAULTS, ...expected });
  });
});

describe('lists are compared as sets', () => {
  const reference = ['10.0.0.1', '2001:db8::1', '203.0.113.7'];
  it.each([
    { name: 'a YAML list in another order', value: '[203.0.113.7, "2001:db8::1", 10.0.0.1]' },
    {
      name: 'duplicates and surrounding spaces',
      value: '["  10.0.0.1", 10.0.0.1, 203.0.113.7, "2001:DB8::1 "]',
    },
    {
      name: 'a one-per-line string with CRLF and blank lines',
      value: '"\\r\\n203.0.113.7\\r\\n\\r\\n 10.0.0.1 \\r\\n2001:db8::1\\r\\n"',
    },
    {
      name: 'a literal block with blank lines',
      value: '|\n      2001:db8::1\n\n      203.0.113.7\n      10.0.0.1',
    },
  ])('$name', ({ value }) => {
    expect(settingsOf(manifest([], [`exclude_ips: ${value}`])).exclude_ips).toEqual(reference);
  });

  it('sorts and de-duplicates parameters the same way', () => {
    const params = settingsOf(
      manifest([], ['exclude_params: "fbclid\\n utm_source\\nfbclid\\n"']),
    ).exclude_params;
    expect(params).toEqual(['fbclid', 'utm_source']);
  });
});

describe('manifest-level values', () => {
  it.each([
    { name: 'no websites key', lines: ['version: 1'], empty: true },
    { name: 'an empty websites key', lines: ['version: 1', 'websites:'], empty: true },
    { name: 'an empty list', lines: ['version: 1', 'websites: []'], empty: true },
    { name: 'one website', lines: ['version: 1', 'websites: [{domain: a.com}]'], empty: false },
  ])('websitesEmpty with $name', ({ lines, empty }) => {
    const desired = parseLines(lines).desired!;
    expect(desired.websitesEmpty).toBe(empty);
    expect(desired.websites.length === 0).toBe(empty);
  });

  it('reads prune and ignore, defaulting prune to false', () => {
    expect(parseLines(['version: 1']).desired).toMatchObject({ prune: false, ignore: [] });
    expect(
      parseLines(['version: 1', 'prune: true', 'ignore: ["*.staging.example.com"]']).desired,
    ).toMatchObject({
      file: 'websites.yaml',
      prune: true,
      ignore: ['*.staging.example.com'],
    });
  });

  it('locates each website at its domain value and keeps the manifest order', () => {
    const desired = parseLines([
      'version: 1',
      'websites:',
      '  - domain: b.com',
      '  - privacy: public',
      '    domain:   a.com',
    ]).desired!;
    expect(desired.websites.map((w) => [w.domain, w.location])).toEqual([
      ['b.com', { file: 'websites.yaml', line: 3, column: 13 }],
      ['a.com', { file: 'websites.yaml', line: 5, column: 15 }],
    ]);
  });

  it('canonicalises listed domains (scheme, path, port, trailing dot, IDN)', () => {
    const desired = parseLines([
      'version: 1',
      'websites:',
      '  - domain: HTTPS://Shop.Example.com:8443/cart?x=1#top',
      '  - domain: blog.example.com.',
      '  - domain: bücher.example',
    ]).desired!;
    expect(desired.websites.map((w) => w.domain)).toEqual([
      'shop.example.com',
      'blog.example.com',
      'xn--bcher-kva.example',
    ]);
  });

  it('interpolates ${NAME:-default} and keeps $${ literal', () => {
    const desired = parseLines(
      [
        'version: 1',
        'websites:',
        '  - domain: ${SITE:-fallback.example.com}',
        '  - domain: ${OTHER}.example.com',
        '    exclude_params: ["$${not_a_var}"]',
      ],
      { OTHER: 'set' },
    ).desired!;
    expect(desired.websites.map((w) => [w.domain, w.exclude_params])).toEqual([
      ['fallback.example.com', []],
      ['set.example.com', ['${not_a_var}']],
    ]);
  });
});
