// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// The editor schema's patterns against the validator's own rules, on seeded generated strings: an
// editor must never flag what validate accepts, and flags what it can of the rest.
import { describe, expect, it } from 'vitest';
import { domainSchema, excludeIpsSchema, excludeParamsSchema } from '../../src/manifest/fields.js';
import { interpolateString } from '../../src/manifest/interpolate.js';
import { deleteDelaySchema } from '../../src/manifest/lifecycle.js';
import {
  DOMAIN_PATTERN,
  DURATION_PATTERN,
  INTERPOLABLE_PATTERN,
  IP_ENTRY,
  itemPattern,
  linesPattern,
  PARAM_ENTRY,
  REFERENCE_PATTERN,
} from '../../src/manifest/patterns.js';
import { generator } from '../helpers/seeded.js';

/** As JSON Schema validators and editors compile `pattern`: ECMAScript, Unicode mode, unanchored. */
const matches = (pattern: string, text: string) => new RegExp(pattern, 'u').test(text);

const SPACES = [' ', '\t', '\r', '\n', '\u00a0', '\u2028'];

function strings(seed: number, pieces: readonly string[], count: number, max: number): string[] {
  const { join } = generator(seed);
  return Array.from({ length: count }, () => join(pieces, max));
}

describe('IP address patterns', () => {
  const pieces = [
    '0',
    '1',
    '9',
    '25',
    '255',
    '256',
    '01',
    'a',
    'F',
    'ffff',
    'g',
    '.',
    ':',
    '::',
    '%',
    'eth0',
  ];
  const inputs = [
    ...strings(1, pieces, 4000, 9),
    ...strings(2, [...pieces, ...SPACES, '1.2.3.4', '::1'], 2000, 6),
    '1.2.3.4',
    '255.255.255.255',
    '01.2.3.4',
    '2001:db8::1',
    'fe80::1%eth0',
    '::ffff:192.0.2.1',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:9',
    ':::',
  ];

  it('accept exactly what validate accepts, as a list item and one per line', () => {
    let accepted = 0;
    for (const text of inputs) {
      const valid = excludeIpsSchema.safeParse([text]).success;
      expect([text, matches(itemPattern(IP_ENTRY), text)]).toEqual([text, valid]);
      expect([text, matches(linesPattern(IP_ENTRY), text)]).toEqual([
        text,
        excludeIpsSchema.safeParse(text).success,
      ]);
      if (valid) accepted++;
    }
    // The generator must reach both sides of the rule, or the comparison proves little.
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(inputs.length - 100);
  });
});

describe('parameter name patterns', () => {
  const pieces = ['utm_', 'x', 'fbclid', '&', '=', '?', '#', '-', 'ü', ...SPACES];
  const inputs = strings(3, pieces, 4000, 7);

  it('accept exactly what validate accepts, as a list item and one per line', () => {
    let accepted = 0;
    for (const text of inputs) {
      const valid = excludeParamsSchema.safeParse([text]).success;
      expect([text, matches(itemPattern(PARAM_ENTRY), text)]).toEqual([text, valid]);
      expect([text, matches(linesPattern(PARAM_ENTRY), text)]).toEqual([
        text,
        excludeParamsSchema.safeParse(text).success,
      ]);
      if (valid) accepted++;
    }
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(inputs.length - 100);
  });
});

describe('duration pattern', () => {
  const pieces = ['0', '1', '24', '.', '.5', 'ms', 's', 'm', 'h', 'd', 'x', ' ', '-'];

  it('accepts exactly what validate accepts', () => {
    for (const text of [...strings(4, pieces, 3000, 6), '0', '24h', '1h30m', ' 500ms ', '1.5d', '']) {
      expect([text, matches(DURATION_PATTERN, text)]).toEqual([
        text,
        deleteDelaySchema.safeParse(text).success,
      ]);
    }
  });
});

describe('domain pattern', () => {
  const pieces = [
    'example',
    'a',
    'www.',
    '.',
    '..',
    'com',
    '123',
    '-',
    '_',
    ' ',
    '/',
    '?',
    '#',
    ':',
    ':8080',
    '//',
    'http://',
    'HTTPS://',
    'ftp://',
    'ü',
    '。',
    'xn--',
    'x'.repeat(64),
  ];
  const inputs = [
    ...strings(5, pieces, 6000, 8),
    'example.com',
    'https://www.Example.com:8443/path?q#f',
    'bücher.example',
    'under_score.example.com',
    'example.com.',
    '1.2.3.4',
    'example。com',
  ];

  it('accepts every domain validate accepts', () => {
    let accepted = 0;
    for (const text of inputs) {
      if (!domainSchema.safeParse(text).success) continue;
      accepted++;
      expect([text, matches(DOMAIN_PATTERN, text)]).toEqual([text, true]);
    }
    expect(accepted).toBeGreaterThan(200);
  });

  it('flags the common mistakes validate rejects', () => {
    for (const text of ['', '   ', 'example', 'localhost', 'example.c_m', '.com', 'my site', 'a.b c']) {
      expect(domainSchema.safeParse(text).success).toBe(false);
      expect([text, matches(DOMAIN_PATTERN, text)]).toEqual([text, false]);
    }
  });
});

describe('reference pattern', () => {
  /** Every variable set: what interpolation makes of a text when none is missing. */
  const everySet = new Proxy({}, { get: () => 'value' }) as Record<string, string>;
  const pieces = ['$', '$', '{', '}', 'A', '_', '1', ':-', ':', 'x', ' ', '$${', '${', '${A}', '${A:-'];

  it('matches every text interpolation rewrites, and no other', () => {
    let matched = 0;
    for (const text of strings(6, pieces, 6000, 7)) {
      const result = interpolateString(text, everySet);
      const isMatch = matches(REFERENCE_PATTERN, text);
      // Without `${` a text is taken as written: the schema checks it as validate does.
      if (!text.includes('${')) expect([text, isMatch]).toEqual([text, false]);
      else if ('value' in result) expect([text, isMatch]).toEqual([text, true]);
      else expect([text, isMatch]).toEqual([text, false]);
      if (isMatch) matched++;
    }
    expect(matched).toBeGreaterThan(500);
  });

  it('as a rule for any text: matches exactly the texts interpolation accepts', () => {
    let rejected = 0;
    for (const text of strings(7, pieces, 6000, 7)) {
      const accepted = 'value' in interpolateString(text, everySet);
      expect([text, matches(INTERPOLABLE_PATTERN, text)]).toEqual([text, accepted]);
      if (!accepted) rejected++;
    }
    expect(rejected).toBeGreaterThan(500);
  });

  it('takes references with defaults and escapes, not malformed ones', () => {
    for (const text of ['${PRIV}', '${PRIV:-public}', 'x${_A1:-}y', '${A:-a b:c}', '$${A}', '$${${A}']) {
      expect([text, matches(REFERENCE_PATTERN, text)]).toEqual([text, true]);
    }
    for (const text of ['$PRIV', '${}', '${1A}', '${A', '${A-b}', '{A}', '${A}${', 'a${b c}']) {
      expect([text, matches(REFERENCE_PATTERN, text)]).toEqual([text, false]);
    }
  });
});
