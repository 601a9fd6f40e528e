// The scalars of the fast YAML reader (fast-yaml.ts): plain, quoted and flow-list values on one line,
// typed as `yaml`'s core schema types them. Anything doubtful gives up, for `yaml` to read instead.

/** Thrown to abandon the fast reading; readSimpleYaml turns it into `undefined`. */
export const GIVE_UP = Symbol('outside the fast subset');

const NULL = /^(?:~|[Nn]ull|NULL)$/;
const TRUE = /^(?:[Tt]rue|TRUE)$/;
const FALSE = /^(?:[Ff]alse|FALSE)$/;
const SMALL_INT = /^(?:0|[1-9][0-9]{0,14})$/;
// Any other scalar the core schema reads as a number (signed, octal, hex, float, inf, nan) is left
// to `yaml`, rather than re-implementing its conversions.
const OTHER_NUMBER =
  /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
/** Characters that start something other than a plain scalar (or that we leave to `yaml`). */
const INDICATORS = new Set(['?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`']);
const SPACE = 32;

export function giveUp(): never {
  throw GIVE_UP;
}

/** Nothing but spaces and an optional comment may follow a quoted scalar or a flow list. */
export function expectEnd(rest: string): void {
  if (rest === '') return;
  const trimmed = rest.trimStart();
  if (trimmed === '' || (trimmed !== rest && trimmed.startsWith('#'))) return;
  giveUp();
}

function resolvePlain(text: string): unknown {
  // Most scalars (domains, names) start with a letter that no null, boolean or number starts with.
  const first = text.charCodeAt(0) | 0x20;
  if (first >= 0x61 && first <= 0x7a && first !== 0x6e && first !== 0x74 && first !== 0x66) return text;
  if (NULL.test(text)) return null;
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  if (SMALL_INT.test(text)) return Number(text);
  if (OTHER_NUMBER.test(text)) giveUp();
  return text;
}

function checkPlainStart(text: string): void {
  const first = text[0] ?? '';
  if (INDICATORS.has(first) || (first === '-' && (text.length === 1 || text[1] === ' '))) giveUp();
}

export function inlineValue(text: string): unknown {
  const first = text[0];
  if (first === '"' || first === "'") {
    const [value, end] = quoted(text, 0);
    expectEnd(text.slice(end));
    return value;
  }
  if (first === '[') return flowList(text);
  checkPlainStart(text);
  const comment = text.indexOf(' #');
  const cut = comment === -1 ? text : text.slice(0, comment);
  const plain = cut.charCodeAt(cut.length - 1) === SPACE ? cut.trimEnd() : cut;
  if (plain.includes(': ') || plain.endsWith(':')) giveUp();
  return resolvePlain(plain);
}

/** A one-line flow list of scalars: `[a, "b", 'c']`. */
function flowList(text: string): unknown[] {
  const items: unknown[] = [];
  let at = 1;
  const skipSpaces = () => {
    while (text[at] === ' ') at++;
  };
  skipSpaces();
  if (text[at] === ']') {
    expectEnd(text.slice(at + 1));
    return items;
  }
  for (;;) {
    skipSpaces();
    const first = text[at];
    if (first === '"' || first === "'") {
      const [value, end] = quoted(text, at);
      items.push(value);
      at = end;
    } else {
      let end = at;
      while (end < text.length && text[end] !== ',' && text[end] !== ']') end++;
      const plain = text.slice(at, end).trim();
      if (plain === '' || /[[\]{}#:]/.test(plain)) giveUp();
      checkPlainStart(plain);
      items.push(resolvePlain(plain));
      at = end;
    }
    skipSpaces();
    if (text[at] === ']') {
      expectEnd(text.slice(at + 1));
      return items;
    }
    if (text[at] !== ',') giveUp();
    at++;
    skipSpaces();
    if (text[at] === ']') giveUp();
  }
}

/** A one-line quoted scalar starting at `start`: its value and the index after the closing quote. */
function quoted(text: string, start: number): [string, number] {
  const quote = text[start];
  if (quote === '"') {
    const end = text.indexOf('"', start + 1);
    if (end === -1) giveUp();
    const value = text.slice(start + 1, end);
    if (value.includes('\\')) giveUp();
    return [value, end + 1];
  }
  let value = '';
  let at = start + 1;
  for (;;) {
    const end = text.indexOf("'", at);
    if (end === -1) giveUp();
    value += text.slice(at, end);
    if (text[end + 1] !== "'") return [value, end + 1];
    value += "'";
    at = end + 2;
  }
}
