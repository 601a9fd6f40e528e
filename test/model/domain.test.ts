import { describe, expect, it } from 'vitest';
import {
  canonicalDomain,
  serviceAcceptsDomain,
  serviceStoredDomain,
  storedKey,
  websiteKey,
} from '../../src/model/index.js';
import { prng } from '../helpers/www-names.js';

describe('canonicalDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM  ', 'example.com'],
    ['http://example.com', 'example.com'],
    ['https://example.com/path?q=1#frag', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['example.com.', 'example.com'],
    ['example.com/', 'example.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['ÉCOLE.fr', 'xn--cole-9oa.fr'],
    ['sub-domain.example.co.uk', 'sub-domain.example.co.uk'],
    // Already canonical (the fast check) and the edges of what it lets through.
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['1.2.3.4', '1.2.3.4'],
    ['a.b', 'a.b'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
    ['wwwexample.com', 'wwwexample.com'],
  ])('%s → %s without warnings', (input, domain) => {
    expect(canonicalDomain(input)).toEqual({ domain, warnings: [] });
  });

  it('removes a leading www. with a warning, even when the rest is already canonical', () => {
    expect(canonicalDomain('www.example.com')).toEqual({
      domain: 'example.com',
      written: 'www.example.com',
      warnings: [
        '"www." removed: the service stores this website as example.com; write "example.com" to silence this warning',
      ],
    });
  });

  it('removes a leading www. with a warning', () => {
    expect(canonicalDomain('https://WWW.example.com/')).toEqual({
      domain: 'example.com',
      written: 'www.example.com',
      warnings: [
        '"www." removed: the service stores this website as example.com; write "example.com" to silence this warning',
      ],
    });
  });

  // The service's rule on store (issue 11, fact 1): lower-case, every http(s):// removed wherever it
  // stands, then, only when the result starts with "www.", every "www." removed.
  it.each([
    ['www.www.dup.example.org', 'dup.example.org'],
    ['www.shop.www.example.net', 'shop.example.net'],
    ['www.awww.example.com', 'aexample.com'],
    ['WWW.Shop.WWW.Example.NET', 'shop.example.net'],
    ['https://www.http://x.www.example.com', 'x.example.com'],
  ])('%s is stored as %s, with a louder warning', (input, domain) => {
    const result = canonicalDomain(input);
    expect(result).toMatchObject({ domain });
    expect('warnings' in result && result.warnings[0]).toMatch(/loses every "www\." in it/);
  });

  it.each([
    ['shop.www.example.net', 'shop.www.example.net'],
    ['awww.example.com', 'awww.example.com'],
  ])('%s (no leading www.) is stored unchanged', (input, domain) => {
    expect(canonicalDomain(input)).toEqual({ domain, warnings: [] });
  });

  it.each([
    ['', 'got "", which has no host name'],
    ['https://', 'got "https://", which has no host name'],
    ['localhost', '"localhost" has no dot'],
    ['www.com', '"www.com" (stored as "com") has no dot'],
    [`${'a'.repeat(64)}.com`, `"${'a'.repeat(64)}.com" has a label of 64 characters; at most 63 are allowed`],
    [
      'example.123',
      '"example.123" is not a domain the service accepts: labels of 1 to 63 characters separated by dots, the last of letters, digits and hyphens and not all digits',
    ],
    [
      'example.c_m',
      '"example.c_m" is not a domain the service accepts: labels of 1 to 63 characters separated by dots, the last of letters, digits and hyphens and not all digits',
    ],
  ])('rejects %j, as the service would', (input, error) => {
    expect(canonicalDomain(input)).toEqual({ error });
  });

  // Issue 11, fact 2: what the service accepts round-trips (export → validate → plan), with a warning.
  it.each([
    ['under_score.example.com', 'under_score'],
    ['-bad.com', '-bad'],
    ['bad-.com', 'bad-'],
    ['exa mple.com', 'exa mple'],
  ])('accepts %j, which the service accepts, with a warning', (input, label) => {
    expect(canonicalDomain(input)).toEqual({
      domain: input,
      warnings: [
        `${input} has the unusual label ${JSON.stringify(label)} (host names use letters, digits and inner hyphens); the service accepts it`,
      ],
    });
  });

  // Names the service accepts and stores as they are (issue 11, fact 2): the manifest means that record,
  // path or query included, with a warning; the host alone is offered instead.
  it.each([
    ['example.com/index.html', 'example.com/index.html', 'example.com'],
    ['https://Example.com/index.html', 'example.com/index.html', 'example.com'],
    ['q?x.example.com', 'q?x.example.com', undefined],
    ['ftp://example.com', 'ftp://example.com', 'example.com'],
    ['bücher.example/ü.html', 'bücher.example/ü.html', 'xn--bcher-kva.example'],
  ])('keeps %j whole as %j: the service stores it so', (input, domain, host) => {
    const result = canonicalDomain(input);
    expect(result).toMatchObject({ domain });
    const instead = host === undefined ? '' : `; write "${host}" if you mean the website ${host}`;
    expect('warnings' in result && result.warnings).toEqual([
      `the service accepts ${JSON.stringify(domain)} as a domain and stores it as written, not as a host name with a path or a port${instead}`,
    ]);
  });

  it.each([
    ['https://example.com/', 'example.com'],
    ['example.com/blog', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['https://www.example.com/a?b#c', 'example.com'],
  ])('still reads %j, which the service would refuse, as the address of %s', (input, domain) => {
    expect(canonicalDomain(input)).toMatchObject({ domain });
  });

  it('means, for every name the service accepts, the record stored under it (export → validate → plan)', () => {
    const random = prng(3);
    const chars = [
      'a',
      'b',
      'W',
      'w',
      '.',
      '.',
      '/',
      '?',
      '#',
      ':',
      '_',
      ' ',
      '-',
      '1',
      'ü',
      '%',
      '=',
      '&',
      '\r',
    ];
    let accepted = 0;
    for (let i = 0; i < 20000; i++) {
      let name = '';
      const length = 1 + Math.floor(random() * 14);
      for (let c = 0; c < length; c++) name += chars[Math.floor(random() * chars.length)];
      name += ['.com', '.example.org', '.x-1', '.', '.com.'][Math.floor(random() * 5)];
      // A record the service can hold: what it stores for some input, and accepts.
      const stored = serviceStoredDomain(name.trim());
      if (stored.trim() !== stored || !serviceAcceptsDomain(stored)) continue;
      accepted++;
      const exported = websiteKey(stored);
      const result = canonicalDomain(exported);
      expect({ stored, result: 'domain' in result }).toEqual({ stored, result: true });
      if (!('domain' in result)) continue;
      const names = [result.domain, result.written];
      const means = names.includes(websiteKey(stored)) || storedKey(stored) === result.domain;
      expect({ stored, exported, result, means }).toMatchObject({ means: true });
    }
    expect(accepted).toBeGreaterThan(3000);
  });

  it('rejects a name longer than 255 characters', () => {
    const long = `${Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.')}.comm`;
    expect(long.length).toBeGreaterThan(255);
    expect(canonicalDomain(long)).toEqual({
      error: `${JSON.stringify(long)} is ${long.length} characters long; at most 255 are allowed`,
    });
  });

  it('accepts exactly 253 characters', () => {
    const name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(name).toHaveLength(253);
    expect(canonicalDomain(name)).toEqual({ domain: name, warnings: [] });
  });
});

describe('websiteKey', () => {
  it('is a fixed point: a key keyed again is the same website, whatever dots the name holds', () => {
    const random = prng(7);
    const pieces = ['shop', 'Bücher', 'www', 'x', '1', '.', '。', '．', '｡', '..', '-', 'example', 'com'];
    for (let i = 0; i < 5_000; i++) {
      const length = 1 + Math.floor(random() * 7);
      const name = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const key = websiteKey(name);
      expect(websiteKey(key), name).toBe(key);
    }
  });

  it('reads the full stops IDNA reads as dots as dots, a trailing one too', () => {
    expect(websiteKey('shop.example.com。')).toBe('shop.example.com');
    expect(websiteKey('shop．example．com')).toBe('shop.example.com');
    expect(canonicalDomain('shop.example.com｡')).toMatchObject({ domain: 'shop.example.com' });
  });
});
