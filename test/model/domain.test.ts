import { describe, expect, it } from 'vitest';
import { canonicalDomain } from '../../src/model/index.js';

describe('canonicalDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM  ', 'example.com'],
    ['http://example.com', 'example.com'],
    ['https://example.com/path?q=1#frag', 'example.com'],
    ['ftp://example.com', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['example.com.', 'example.com'],
    ['example.com/', 'example.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['ÉCOLE.fr', 'xn--cole-9oa.fr'],
    ['www.com', 'www.com'],
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
      warnings: [
        '"www." removed: the service stores this website as example.com; write "example.com" to silence this warning',
      ],
    });
  });

  it('removes a leading www. with a warning', () => {
    expect(canonicalDomain('https://WWW.example.com/')).toEqual({
      domain: 'example.com',
      warnings: [
        '"www." removed: the service stores this website as example.com; write "example.com" to silence this warning',
      ],
    });
  });

  it.each([
    ['', 'got "", which has no host name'],
    ['https://', 'got "https://", which has no host name'],
    ['localhost', '"localhost" has no dot'],
    [
      'exa mple.com',
      '"exa mple.com" has an invalid label "exa mple" (labels are letters, digits and inner hyphens)',
    ],
    ['-bad.com', '"-bad.com" has an invalid label "-bad" (labels are letters, digits and inner hyphens)'],
    ['a..com', '"a..com" has an invalid label "" (labels are letters, digits and inner hyphens)'],
    ['bad-.com', '"bad-.com" has an invalid label "bad-" (labels are letters, digits and inner hyphens)'],
    ['.example.com', '".example.com" has an invalid label "" (labels are letters, digits and inner hyphens)'],
    [`${'a'.repeat(64)}.com`, `"${'a'.repeat(64)}.com" has a label of 64 characters; at most 63 are allowed`],
  ])('rejects %j', (input, error) => {
    expect(canonicalDomain(input)).toEqual({ error });
  });

  it('rejects a name longer than 253 characters', () => {
    const long = `${Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.')}.com`;
    expect(canonicalDomain(long)).toEqual({
      error: `${JSON.stringify(long)} is ${long.length} characters long; at most 253 are allowed`,
    });
  });

  it('accepts exactly 253 characters', () => {
    const name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(name).toHaveLength(253);
    expect(canonicalDomain(name)).toEqual({ domain: name, warnings: [] });
  });
});
