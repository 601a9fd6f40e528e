// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// One zod schema per setting. The input side is lenient where YAML and interpolation make it natural
// (names or codes, `true` or `1`, lists or one-per-line strings, and strings, since `${VAR}` always
// yields one); the output side is exactly what the service takes.
import { isIP } from 'node:net';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { Privacy } from '../model/index.js';
import { canonicalDomain, canonicalIp, patternSpellingError } from '../model/index.js';
import { describeValue, expected } from './describe-value.js';
import { DOMAIN_PATTERN, IP_ENTRY, itemPattern, linesPattern, PARAM_ENTRY } from './patterns.js';

const PRIVACY_CODES: Record<string, Privacy> = {
  public: 0,
  private: 1,
  password: 2,
  '0': 0,
  '1': 1,
  '2': 2,
};

export const privacySchema = z
  .union([z.enum(['public', 'private', 'password']), z.literal([0, 1, 2]), z.enum(['0', '1', '2'])], {
    error: (iss) => expected('must be one of public, private, password (or 0, 1, 2)', iss.input),
  })
  .transform((value): Privacy => PRIVACY_CODES[String(value)]!)
  .describe('Privacy of the statistics page: public, private or password (or the codes 0, 1, 2).');

export function booleanSchema(description: string) {
  return z
    .union([z.boolean(), z.literal([0, 1]), z.enum(['true', 'false', '0', '1'])], {
      error: (iss) => expected('must be true or false (or 1, 0)', iss.input),
    })
    .transform((value) => value === true || value === 1 || value === 'true' || value === '1')
    .describe(description);
}

const PASSWORD_MAX = 128;

// The password's value is never shown in a message: it usually comes from the environment.
export const passwordSchema = z
  .string({
    error: (iss) =>
      iss.input === null || iss.input === undefined
        ? 'must not be empty'
        : typeof iss.input === 'number' || typeof iss.input === 'boolean'
          ? 'must be a string (put it in quotes: YAML reads unquoted digits, true or false as another type)'
          : 'must be a string (a list or a mapping is not a password)',
  })
  .min(1, { error: 'must not be empty' })
  .refine((value) => [...value].length <= PASSWORD_MAX, {
    error: `must be at most ${PASSWORD_MAX} characters (the service's limit)`,
  })
  .meta({
    maxLength: PASSWORD_MAX,
    description: 'Password of the statistics page, used only when privacy is password. Write ${VARIABLE}.',
  });

interface Entry {
  index: number;
  text: string;
}

/** List entries with their position: the list index, or the line index within a one-per-line string. */
function splitEntries(input: string[] | string | null): Entry[] {
  const items = input === null ? [] : typeof input === 'string' ? input.split('\n') : input;
  return items.map((item, index) => ({ index, text: item.trim() })).filter((entry) => entry.text !== '');
}

interface ListOptions {
  /** Returns why an entry is invalid, or undefined. */
  check: (entry: string) => string | undefined;
  /** The same rule for the editor schema (patterns.ts): a regular expression for one entry, and what it asks for. */
  entry: string;
  entryName: string;
  normalise: (entry: string) => string;
  description: string;
}

/** A set of strings written as a YAML list or a one-per-line string; sorted and de-duplicated. */
function stringSetSchema({ check, entry, entryName, normalise, description }: ListOptions) {
  const item = z
    .string({ error: (iss) => expected('must be a string', iss.input) })
    .meta({ pattern: itemPattern(entry), patternErrorMessage: `must be ${entryName}` });
  const lines = z
    .string()
    .meta({ pattern: linesPattern(entry), patternErrorMessage: `every line must be ${entryName}` });
  return z
    .union([z.array(item), lines, z.null()], {
      error: (iss) => expected('must be a list of strings or a one-per-line string', iss.input),
    })
    .transform((input, ctx) => {
      const values = new Set<string>();
      for (const { index, text } of splitEntries(input)) {
        const problem = check(text);
        if (problem === undefined) values.add(normalise(text));
        else ctx.issues.push({ code: 'custom', message: problem, input: text, path: [index] });
      }
      return [...values].sort();
    })
    .describe(description);
}

export const excludeIpsSchema = stringSetSchema({
  check: (entry) =>
    isIP(entry) === 0 ? `must be an IPv4 or IPv6 address; got ${describeValue(entry)}` : undefined,
  entry: IP_ENTRY,
  entryName: 'an IPv4 or IPv6 address',
  normalise: canonicalIp,
  description: 'IP addresses excluded from tracking: a list, or one per line.',
});

export const excludeParamsSchema = stringSetSchema({
  check: (entry) =>
    /[\s&=?#]/.test(entry)
      ? `must be a query parameter name (no whitespace, "&", "=", "?" or "#"); got ${describeValue(entry)}`
      : undefined,
  entry: PARAM_ENTRY,
  entryName: 'a query parameter name (no whitespace, "&", "=", "?" or "#")',
  normalise: (entry) => entry,
  description: 'URL query parameter names excluded from tracking: a list, or one per line.',
});

export const domainSchema = z
  .string({ error: (iss) => expected('must be a domain name such as example.com', iss.input) })
  .meta({ pattern: DOMAIN_PATTERN, patternErrorMessage: 'must be a domain name such as example.com' })
  .transform((input, ctx) => {
    const result = canonicalDomain(input);
    if ('domain' in result) return result.domain;
    ctx.issues.push({
      code: 'custom',
      message: `must be a domain name such as example.com; ${result.error}`,
      input,
    });
    return z.NEVER;
  })
  .describe('The website, e.g. example.com (lower-cased; scheme, path, port and a leading www. removed).');

export function globError(pattern: string): string | undefined {
  if (pattern.trim() === '')
    return 'must be a glob pattern such as "*.staging.example.com"; got an empty string';
  try {
    picomatch(pattern);
    return patternSpellingError(pattern);
  } catch (error) {
    return `must be a glob pattern such as "*.staging.example.com"; ${(error as Error).message}`;
  }
}

export const ignorePatternSchema = z
  .string({ error: (iss) => expected('must be a glob pattern such as "*.staging.example.com"', iss.input) })
  .superRefine((pattern, ctx) => {
    const problem = globError(pattern);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
