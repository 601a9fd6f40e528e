// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exportManifest, passwordVariables } from '../../src/export/index.js';
import { parseManifest } from '../../src/manifest/index.js';
import { remoteSite } from '../helpers/builders.js';

const OPTIONS = {
  baseUrl: 'https://stats.example.com',
  version: '1.2.3',
  now: new Date('2025-01-02T03:04:05Z'),
};

describe('exportManifest', () => {
  const records = [
    remoteSite(3, 'shop.example.com', { privacy: 2, hasPassword: true }),
    remoteSite(1, 'plain.example.com'),
    remoteSite(2, 'Loud.Example.com', {
      privacy: 0,
      email: true,
      exclude_bots: false,
      exclude_ips: ['203.0.113.7'],
    }),
  ];

  it('lists every website by canonical domain, leaving out values equal to the defaults', () => {
    const { text } = exportManifest(records, OPTIONS);
    expect(parse(text)).toEqual({
      version: 1,
      prune: false,
      websites: [
        {
          domain: 'loud.example.com',
          privacy: 'public',
          email: true,
          exclude_bots: false,
          exclude_ips: ['203.0.113.7'],
        },
        { domain: 'plain.example.com' },
        {
          domain: 'shop.example.com',
          privacy: 'password',
          password: '${WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM}',
        },
      ],
    });
  });

  it('starts with the schema comment and explains what it could not export', () => {
    const { text, passwordVariables } = exportManifest(records, OPTIONS);
    const lines = text.split('\n');
    expect(lines[0]).toBe('# yaml-language-server: $schema=./websites.schema.json');
    expect(text).toContain('# exclude_params: not returned by the service, so not written here.');
    expect(text).toContain(
      "    # The service never returns passwords: set WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM to this website's password\n    password: ${WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM}",
    );
    expect(passwordVariables).toEqual({ 'shop.example.com': 'WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM' });
  });

  it('is a valid manifest once the password variables are set', () => {
    const { text } = exportManifest(records, OPTIONS);
    const parsed = parseManifest(text, {
      file: 'websites.yaml',
      env: { WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM: 'x' },
    });
    expect(parsed.problems).toEqual([]);
    expect(parsed.desired?.websites.map((w) => w.domain)).toEqual([
      'loud.example.com',
      'plain.example.com',
      'shop.example.com',
    ]);
  });

  it('keeps values a manifest cannot declare out of it, as ignore_fields with a note: it validates, and they stay', () => {
    const cidr = [
      remoteSite(4, 'cidr.example.com', { exclude_ips: ['10.0.0.0/8', '192.168.1.*'], email: true }),
    ];
    const { text } = exportManifest(cidr, OPTIONS);
    expect(text).toContain(
      'exclude_ips holds values a manifest cannot declare ("10.0.0.0/8", "192.168.1.*")',
    );
    const parsed = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(parsed.problems).toEqual([]);
    const [website] = parsed.desired?.websites ?? [];
    expect(website?.ignoreFields).toEqual(['exclude_ips']);
    expect(website?.email).toBe(true);
  });

  it('says which records have no name at all (no pattern can keep them), and stays valid', () => {
    const unnamed = [remoteSite(8, ''), remoteSite(9, '   '), remoteSite(1, 'plain.example.com')];
    const { text } = exportManifest(unnamed, OPTIONS);
    expect(text).toContain('(id 8)');
    expect(text).toContain('(id 9)');
    const parsed = parseManifest(text, { file: 'websites.yaml', env: {} });
    expect(parsed.problems).toEqual([]);
    expect(parsed.desired?.websites.map((w) => w.domain)).toEqual(['plain.example.com']);
  });

  it('leaves out fields the service holds as null (not set), says so, and stays valid', () => {
    const unset = [remoteSite(4, 'unset.example.com', { privacy: null, email: null })];
    const { text } = exportManifest(unset, OPTIONS);
    expect(text).not.toMatch(/: null/);
    expect(text).toContain('privacy, email: not set on the service (null)');
    expect(parseManifest(text, { file: 'websites.yaml', env: {} }).problems).toEqual([]);
  });

  it('exports a field the deployment does return, and notes one only some records lack', () => {
    const { text } = exportManifest(
      [remoteSite(1, 'a.example.com', { exclude_params: ['fbclid'] }), remoteSite(2, 'b.example.com')],
      OPTIONS,
    );
    expect(parse(text).websites).toEqual([
      { domain: 'a.example.com', exclude_params: ['fbclid'] },
      { domain: 'b.example.com' },
    ]);
    expect(text).toContain('  - domain: b.example.com\n    # exclude_params: not returned by the service');
  });

  it('writes an empty list for an empty account', () => {
    expect(parse(exportManifest([], OPTIONS).text)).toEqual({ version: 1, prune: false, websites: [] });
  });
});

describe('passwordVariables', () => {
  it('gives colliding domains distinct names', () => {
    expect(passwordVariables(['a-b.example.com', 'a.b.example.com', 'xn--bcher-kva.example'])).toEqual({
      'a-b.example.com': 'WEBSITES_SYNC_PASSWORD_A_B_EXAMPLE_COM',
      'a.b.example.com': 'WEBSITES_SYNC_PASSWORD_A_B_EXAMPLE_COM_2',
      'xn--bcher-kva.example': 'WEBSITES_SYNC_PASSWORD_XN__BCHER_KVA_EXAMPLE',
    });
  });
});
