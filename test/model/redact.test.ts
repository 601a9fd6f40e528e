import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/model/index.js';

const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

const spell = (text: string, each: (code: number) => string) =>
  [...text].map((char) => each(char.codePointAt(0) ?? 0)).join('');

describe('Redactor: every character may be an entity', () => {
  const secret = 'P&ss-w0rd<Sécret>';
  it.each([
    ['decimal', spell(secret, (code) => `&#${code};`)],
    ['decimal without ;', spell(secret, (code) => `&#${code}`)],
    ['decimal with zeros', spell(secret, (code) => `&#00${code};`)],
    ['hexadecimal', spell(secret, (code) => `&#x${code.toString(16)};`)],
    ['hexadecimal in capitals, without ;', spell(secret, (code) => `&#X${code.toString(16).toUpperCase()}`)],
    ['mixed with plain characters', 'P&#38;ss-&#119;0rd&lt;S&#xe9;cret&gt;'],
    ['named entities without ;', 'P&ampss-w0rd&ltSécret&gt'],
  ])('%s', (_name, spelled) => {
    expect(redactorOf(secret).redact(`<p>${spelled}</p>`)).toBe('<p>[redacted]</p>');
  });
});

describe('Redactor: in any case', () => {
  it.each(['P&SS-W0RD<SÉCRET>', 'p&ss-w0rd<sécret>', 'p&Ss-W0rD<sÉcReT>', 'P&AMP;SS-W0RD&LT;SÉCRET&GT;'])(
    '%s',
    (spelled) => {
      expect(redactorOf('P&ss-w0rd<Sécret>').redact(`x ${spelled} y`)).toBe('x [redacted] y');
    },
  );
});

describe('Redactor: base64 of a secret', () => {
  const secret = 'P&ss-w0rd<Sécret>';
  const key = 'kkSECRETKEY123';
  it.each([
    ['standard', Buffer.from(secret).toString('base64'), /\+/],
    ['URL-safe', Buffer.from(secret).toString('base64url'), /-/],
    ['padded', Buffer.from(key).toString('base64'), /=$/],
    ['without padding', Buffer.from(key).toString('base64url'), /^[^=]+$/],
  ])('%s', (_name, encoded, shape) => {
    expect(encoded).toMatch(shape);
    expect(redactorOf(secret, key).redact(`Basic ${encoded}\n`)).toBe('Basic [redacted]\n');
  });
});

describe('Redactor: a secret URL- or form-encoded twice', () => {
  it('is masked', () => {
    const secret = 'P&ss w0rd<Sécret>';
    const twice = encodeURIComponent(encodeURIComponent(secret));
    const formTwice = encodeURIComponent(new URLSearchParams({ p: secret }).toString().slice(2));
    expect(formTwice).toContain('%2B');
    expect(redactorOf(secret).redact(`?p=${twice}&x=1`)).toBe('?p=[redacted]&x=1');
    expect(redactorOf(secret).redact(`?p=${formTwice}&x=1`)).toBe('?p=[redacted]&x=1');
  });
});

describe('Redactor: a secret cut short', () => {
  const secret = 'P&ss-w0rd<Sécret>'; // 17 characters: a cut start of 12 or more is masked
  it.each([
    ['at the end of the text', 'P&ss-w0rd<Sé', '[redacted]'],
    ['at the end of a line', 'v=P&ss-w0rd<Séc\nnext', 'v=[redacted]\nnext'],
    ['before a space', 'P&ss-w0rd<Sécre and more', '[redacted] and more'],
    ['before an ellipsis', '"P&ss-w0rd<Séc…"', '"[redacted]…"'],
    ['before three dots', 'P&ss-w0rd<Séc... (truncated)', '[redacted]... (truncated)'],
    ['before a quote', `'P&ss-w0rd<Sécr'`, `'[redacted]'`],
    ['before <', '<b>P&ss-w0rd<Sécr</b>', '<b>[redacted]</b>'],
    ['HTML-escaped, before &quot;', '&quot;P&amp;ss-w0rd&lt;S&#233;cr&quot;', '&quot;[redacted]&quot;'],
    ['JSON-escaped, before \\"', '{"e":"\\"P&ss-w0rd<S\\u00e9cr\\""}', '{"e":"\\"[redacted]\\""}'],
  ])('%s', (_name, text, shown) => {
    expect(redactorOf(secret).redact(text)).toBe(shown);
  });

  it.each([
    ['shorter than two thirds of the secret', 'P&ss-w0rd<S'],
    ['not followed by a cut', 'P&ss-w0rd<Sécrex'],
  ])('%s: left as it is', (_name, text) => {
    expect(redactorOf(secret).redact(text)).toBe(text);
  });

  it('a cut API key in an Authorization header', () => {
    expect(redactorOf('kkSECRETKEY123').redact('Authorization: Bearer kkSECRETKEY1\n')).toBe(
      'Authorization: Bearer [redacted]\n',
    );
  });

  it('an ordinary word a secret starts with is not masked, nor a start shorter than 8 characters', () => {
    const redactor = redactorOf('Password12345', 'examples42');
    const text = 'privacy: password\nexample.com "example" Password1...';
    expect(redactor.redact(text)).toBe('privacy: password\nexample.com "example" [redacted]...');
    expect(redactorOf('Passwordwithoutdigits').redact('privacy: password\nPasswordwith\n')).toBe(
      'privacy: password\nPasswordwith\n',
    );
  });
});

describe('Redactor: many secrets', () => {
  it('finds each of 5,000 secrets, and only those, among many lines', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed;
    };
    const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_!&<>';
    const secrets = Array.from({ length: 5000 }, () =>
      Array.from({ length: 12 + (next() % 12) }, () => alphabet[next() % alphabet.length]).join(''),
    );
    const redactor = redactorOf(...secrets);
    const lines = secrets.map(
      (secret, i) => `{"msg":"site${i}.example.com refused","p":${JSON.stringify(secret)}}`,
    );
    const redacted = lines.map((line) => redactor.redact(line));
    const expected = secrets.map((_, i) => `{"msg":"site${i}.example.com refused","p":"[redacted]"}`);
    expect(redacted.filter((line, i) => line !== expected[i])).toEqual([]);
  });
});
