import { describe, expect, it } from 'vitest';
import {
  colored,
  hasControls,
  ownText,
  Redactor,
  shownJson,
  shownText,
  terminalText,
} from '../../src/model/index.js';

// Issue 19 §2: one function shows every character a terminal or an editor would interpret escaped.
describe('shownText', () => {
  it.each([
    ['ESC c', '\u001bc.example.com', '\\x1bc.example.com'],
    ['ESC [8m', '\u001b[8mx.example.com', '\\x1b[8mx.example.com'],
    ['CR', 'a.example.com\rNo changes.', 'a.example.com\\x0dNo changes.'],
    ['DEL and C1', 'a\u007fb\u009bc', 'a\\x7fb\\x9bc'],
    ['a right-to-left override', '\u202emoc.x', '\\u202emoc.x'],
    ['isolates and marks', '\u2066a\u2069\u200e\u200f\u061c', '\\u2066a\\u2069\\u200e\\u200f\\u061c'],
    [
      'zero-width characters',
      'a\u200bb\u200cc\u200dd\u2060e\ufeff',
      'a\\u200bb\\u200cc\\u200dd\\u2060e\\ufeff',
    ],
  ])('%s', (_name, text, shown) => {
    expect(shownText(text)).toBe(shown);
    expect(hasControls(text)).toBe(true);
  });

  it('keeps line feeds and every other character (accents, emoji, CJK); a tab is escaped', () => {
    const text = 'ligne 1\n  bücher.example — 例え.テスト 🎉';
    expect(shownText(text)).toBe(text);
    expect(shownText('a\tb.example.com')).toBe('a\\x09b.example.com');
    expect(hasControls('bücher.example')).toBe(false);
  });
});

describe('shownJson', () => {
  it('is still valid JSON that parses to the exact value, escaped once', () => {
    const value = { domain: '\u001bc\u202e\u200b\u007f\u0085x', note: 'a\\x1b' };
    const json = shownJson(JSON.stringify(value));
    expect(json).not.toMatch(/[\u007f-\u009f\u202e\u200b]/);
    expect(JSON.parse(json)).toEqual(value);
    expect(shownJson(json)).toBe(json);
  });
});

describe('terminalText: only the tool own codes reach a terminal as codes', () => {
  it('keeps a colour and an erase the tool made, and escapes the same codes from outside', () => {
    const outside = '\u001b[31m\r\u001b[K';
    const text = `${colored(31, outside)}${ownText('\r\u001b[K')}`;
    expect(terminalText(text)).toBe('\u001b[31m\\x1b[31m\\x0d\\x1b[K\u001b[0m\r\u001b[K');
  });

  it('cannot be forged: a marker spelled by hand without the secret of the process is just text', () => {
    const forged = '\ue000\u001b[8m\ue001';
    expect(terminalText(forged)).toBe('\ue000\\x1b[8m\ue001');
  });

  it('is what the Redactor shows: masked first, then escaped', () => {
    const redactor = new Redactor();
    redactor.add('s3cret-p4ss');
    expect(redactor.show('\u001b[8m s3cret-p4ss')).toBe('\\x1b[8m [redacted]');
    expect(JSON.parse(redactor.showJson(JSON.stringify('\u202e s3cret-p4ss')))).toBe('\u202e [redacted]');
  });
});
