import { describe, expect, it } from 'vitest';
import { jsonDocument, REDACTED, Redactor } from '../../src/model/index.js';

// A JSON document stays JSON, whatever a secret is: secrets are masked in its strings, keys included,
// and its bare literals (numbers, true, false, null) are left as they are.
const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/** A document holding each literal beside strings and a key that hold the secret. */
const documentWith = (secret: string) => ({
  dry_run: true,
  risky: false,
  id: null,
  visitors: 1234,
  delta: -1,
  big: 1e3,
  list: [true, null, 1234, -1, 1000, 'x'],
  msg: `the password ${secret} was refused`,
  [`key ${secret}`]: secret,
});

const masked = documentWith(REDACTED);

describe('Redactor.showJson: a secret that is a word of JSON', () => {
  it.each(['true', 'false', 'null', '1234', '-1', '1e3', '1000'])('%s: masked in strings only', (secret) => {
    const redactor = redactorOf(secret);
    // As JSON.stringify writes it, and as a document written by hand (`1e3` as it is).
    for (const json of [
      JSON.stringify(documentWith(secret), null, 2),
      JSON.stringify(documentWith(secret)).replace('"big":1000', '"big":1e3'),
    ]) {
      const shown = redactor.showJson(json);
      expect(JSON.parse(shown)).toEqual(masked);
      expect(redactor.redactJson(json)).toBe(shown);
    }
  });

  it('a text that is not JSON is masked as text', () => {
    expect(redactorOf('true').redactJson('dry_run: true')).toBe('dry_run: [redacted]');
  });

  it('an escape is read as the character it stands for: a secret it seems to complete is not there', () => {
    const json = JSON.stringify({ a: '\nabcdefgh' }); // {"a":"\nabcdefgh"}
    expect(redactorOf('nabcdefgh').redactJson(json)).toBe(json);
  });
});

describe('Redactor.showJson: a secret JSON escapes', () => {
  it.each([
    ['a quote and a backslash', 'abc"def\\'],
    ['non-ASCII', 'pässwörd-Ω'],
    ['a line feed and a tab', 'pass\nword\t42'],
  ])('%s: masked in a string, in a string of JSON inside a string, and in a key', (_name, secret) => {
    const redactor = redactorOf(secret, 'true');
    const inner = JSON.stringify({ password: secret });
    const json = JSON.stringify({ msg: `refused ${secret}`, body: inner, [secret]: true });
    const shown = JSON.parse(redactor.showJson(json));
    expect(shown).toEqual({
      msg: 'refused [redacted]',
      body: '{"password":"[redacted]"}',
      '[redacted]': true,
    });
  });
});

describe('Redactor.show: a JSON document marked as one', () => {
  it('is masked as JSON, and the text around it as text', () => {
    const redactor = redactorOf('true');
    const shown = redactor.show(`before true\n${jsonDocument('{"a": true, "b": "is true"}\n')}after true\n`);
    expect(shown).toBe('before [redacted]\n{"a": true, "b": "is [redacted]"}\nafter [redacted]\n');
  });

  it('a text that only looks like a mark is text', () => {
    const redactor = redactorOf('true');
    const forged = jsonDocument('{"a": true}').replace(/[0-9a-f]{24}/g, '0'.repeat(24));
    expect(redactor.show(forged)).not.toContain('true');
  });
});
