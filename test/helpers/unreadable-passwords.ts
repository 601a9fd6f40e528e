// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { expect } from 'vitest';

// A password written unquoted with YAML syntax (an alias, a tag, a block scalar header...) fails to
// parse, so the redactor never learns it: the message about it must not quote it (issue 10 §4). It
// says what YAML read there, at the password's own line and column.
export const UNREADABLE_PASSWORDS: Array<[string, string]> = [
  ['an alias', '*Secr3tAlias'],
  ['an alias followed by more text', '*Secr3tAlias Secr3tTail'],
  ['a tag', '!Secr3tTag'],
  ['a literal block header', '|Secr3tBlock'],
  ['a folded block header', '>Secr3tFold'],
  ['an anchor', '&Secr3tAnchor'],
  ['a reserved character', '@Secr3tAt'],
  ['an unclosed quote', '"Secr3tQuote'],
  ['a malformed ${…} reference', 'Sup3r${Secr3tBad'],
];

export function manifestWithPassword(password: string): string {
  return `version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${password}\n`;
}

/** No part of the password: the text after its first character, and what comes before a `${`. */
export function expectNoPasswordText(text: string, password: string): void {
  expect(text).not.toContain('Secr3t');
  for (const part of password.slice(1).split(/[ ${]+/)) if (part.length > 2) expect(text).not.toContain(part);
}
