import { describe, expect, it } from 'vitest';
import { serviceAcceptsDomain as isDomainName } from '../../src/model/index.js';
import { canonicalDomain } from '../../src/simulator/store.js';
import { applyInputMiddleware, summarizeErrors } from '../../src/simulator/validation.js';

describe('isDomainName (the service rule)', () => {
  it.each([
    'example.com',
    'a.b.c.example.co.uk',
    'xn--bcher-kva.example',
    'example.com.',
    '192.0.2.10',
    'a..b',
    '1.example.123.',
  ])('accepts %j', (domain) => {
    expect(isDomainName(domain)).toBe(true);
  });

  it.each([
    '',
    'localhost',
    'example.com/path',
    'example.com:8080',
    'example.123',
    '://example.com',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(128)}com`,
    'line\nbreak.com',
  ])('refuses %j', (domain) => {
    expect(isDomainName(domain)).toBe(false);
  });

  it('settles dotted input that fails late (the regex form would backtrack for ages)', () => {
    expect(isDomainName(`${'a.'.repeat(120)}!`)).toBe(false);
  });
});

describe('canonicalDomain (as the service stores it)', () => {
  it.each([
    ['HTTPS://WWW.Example.COM', 'example.com'],
    ['http://shop.example.com', 'shop.example.com'],
    ['www.www.example.com', 'example.com'],
    ['www.shop.www.example.net', 'shop.example.net'],
    ['www.awww.example.com', 'aexample.com'],
    ['shop.www.example.net', 'shop.www.example.net'],
    ['x.https://example.com', 'x.example.com'],
    ['  example.com  ', 'example.com'],
    ['example.com/path', 'example.com/path'],
    ['ftp://example.com', 'ftp://example.com'],
  ])('%j -> %j', (input, expected) => {
    expect(canonicalDomain(input)).toBe(expected);
  });
});

describe('input middleware', () => {
  it('trims strings except the password and turns empty strings into null', () => {
    expect(
      applyInputMiddleware({ domain: ' a.example ', exclude_ips: '', password: ' pw ', email: ' ' }),
    ).toEqual({
      domain: 'a.example',
      exclude_ips: null,
      password: ' pw ',
      email: null,
    });
  });
});

describe('summarizeErrors', () => {
  it('names the first error and counts the rest', () => {
    expect(summarizeErrors({ a: ['A.'] })).toBe('A.');
    expect(summarizeErrors({ a: ['A.', 'B.'], c: ['C.'] })).toBe('A. (and 2 more errors)');
  });
});
