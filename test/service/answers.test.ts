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
