import { describe, expect, it } from 'vitest';
import { readErrorBody, readRecord } from '../../src/service/answers.js';

// Issue 19 §7: one schema reads every answer; a value of another type is a message, never a crash.
const redact = (text: string) => text.replaceAll('s3cret', '***');
const problem = (raw: unknown) => {
  const reading = readRecord(raw, redact);
  return 'problem' in reading ? reading.problem : undefined;
};

describe('readRecord', () => {
  it.each([
    ['exclude_ips', { toString: 1 }],
    ['exclude_params', [{ toString: 1 }]],
    ['privacy', 'public'],
    ['email', { valueOf: 1 }],
    ['exclude_bots', 2],
    ['password', [true]],
    ['domain', 7],
  ])('%s %j: names the website, the field and the value', (field, value) => {
    const text = problem({ id: 3, domain: 'shop.example.com', [field]: value });
    expect(text).toContain(`${field} must be `);
    expect(text).toContain(`got ${JSON.stringify(value)}`);
    if (field !== 'domain') expect(text).toMatch(/^"shop\.example\.com" \(id 3\): /);
  });

  it.each([1.5, true, { n: 1 }, 2 ** 53, '', 'a\nb', '..', null])('an id %j is its own message', (id) => {
    expect(problem({ id, domain: 'shop.example.com' })).toMatch(
      /^"shop\.example\.com": id must be an integer/,
    );
  });

  it('an entry that is not a website, a missing field, and secrets in the excerpt', () => {
    expect(problem('x')).toBe('an entry that is not a website: "x"');
    expect(problem({ id: 1 })).toContain('domain must be a string, it is missing');
    expect(problem({ id: 1, domain: 'a.example.com', exclude_ips: { pw: 's3cret' } })).not.toContain(
      's3cret',
    );
  });

  it('reads every form the service is known to use', () => {
    expect(
      readRecord(
        {
          id: '7',
          domain: 'a.example.com',
          privacy: '2',
          email: 'true',
          exclude_bots: 0,
          password: true,
          exclude_ips: null,
        },
        redact,
      ),
    ).toEqual({
      record: {
        id: 7,
        domain: 'a.example.com',
        privacy: 2,
        email: true,
        exclude_bots: false,
        hasPassword: true,
        exclude_ips: [],
      },
    });
  });
  // Every form the service is known to use, and the values next to them that it does not use.
  const FORMS: Record<string, { reads: [unknown, unknown][]; refuses: unknown[] }> = {
    privacy: {
      reads: [
        [0, 0],
        [1, 1],
        [2, 2],
        ['0', 0],
        ['2', 2],
        ['', null],
        [null, null],
      ],
      refuses: [3, -1, 1.5, '3', 'public', true, [], {}],
    },
    email: {
      reads: [
        [true, true],
        [false, false],
        [1, true],
        [0, false],
        ['1', true],
        ['0', false],
        ['true', true],
        ['false', false],
        ['', null],
        [null, null],
      ],
      refuses: [2, -1, 'yes', 'TRUE', [], {}, [true]],
    },
    exclude_params: {
      reads: [
        [null, []],
        ['b\r\n a \n\nb', ['a', 'b']],
        [
          ['x', 7, ' x '],
          ['7', 'x'],
        ],
        [[], []],
        ['', []],
      ],
      refuses: [7, true, {}, [null], [['x']], [{ toString: 1 }]],
    },
    password: {
      reads: [
        [true, true],
        [false, false],
        [1, true],
        [0, false],
        ['', false],
        [null, false],
        ['set', true],
        ['false', false],
      ],
      refuses: [2, [], {}, [true]],
    },
  };
  const KEY: Record<string, string> = { password: 'hasPassword' };

  it.each(Object.entries(FORMS))('%s: reads each known form, and names any other value', (name, forms) => {
    for (const [value, read] of forms.reads) {
      const reading = readRecord({ id: 1, domain: 'a.example.com', [name]: value }, redact);
      expect(reading, JSON.stringify(value)).toEqual({
        record: { id: 1, domain: 'a.example.com', [KEY[name] ?? name]: read },
      });
    }
    for (const value of forms.refuses) {
      expect(problem({ id: 1, domain: 'a.example.com', [name]: value }), JSON.stringify(value)).toContain(
        `${name} must be `,
      );
    }
  });

  it('names the first unusable field in the order id, domain, privacy, …, password; ignores unknown keys', () => {
    expect(problem({ domain: 7, privacy: 'x' })).toMatch(/^a website: id must be/);
    expect(problem({ id: 1, domain: 7, privacy: 'x' })).toMatch(
      /^a website \(id 1\): domain must be a string, got 7/,
    );
    expect(problem({ id: 1, domain: 'a.example.com', password: 2, email: 'x' })).toMatch(/email must be/);
    expect(readRecord({ id: 1, domain: 'a.example.com', favorite: 'x', extra: {} }, redact)).toEqual({
      record: { id: 1, domain: 'a.example.com' },
    });
  });
});

describe('readErrorBody', () => {
  it('keeps text as it is and shows any other value as JSON, never through its own toString', () => {
    expect(
      readErrorBody({ message: { toString: 1 }, errors: { domain: [{ toString: 1 }, 'taken'], ip: 'bad' } }),
    ).toEqual({
      message: undefined,
      fieldErrors: { domain: ['{"toString":1}', 'taken'], ip: ['bad'] },
    });
    expect(readErrorBody([1, 2])).toEqual({ message: undefined, fieldErrors: {} });
    expect(readErrorBody({ errors: 'x' })).toEqual({ message: undefined, fieldErrors: {} });
  });
});
