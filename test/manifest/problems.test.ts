// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/model/index.js';
import { parseLines } from './helpers.js';

const SITE_KEYS =
  'domain, privacy, password, email, exclude_bots, exclude_params, exclude_ips, protect, observe, ignore_fields, allow_delete_with_traffic';
const SETTING_KEYS =
  'privacy, password, email, exclude_bots, exclude_params, exclude_ips, protect, observe, ignore_fields';
const TOP_KEYS = 'version, prune, delete_delay, traffic_window, traffic_guard, ignore, defaults, websites';

type Expected = Omit<Problem, 'file'>;

interface Case {
  name: string;
  lines: string[];
  env?: Record<string, string>;
  expected: Expected;
}

const ONCE = 'a key may appear once in a mapping (remove one of them)';
const error = (line: number, column: number, field: string, message: string): Expected => ({
  severity: 'error',
  line,
  column,
  field,
  message,
});

// Each manifest has exactly one problem, so the assertion covers message, field, line and column.
const cases: Case[] = [
  {
    name: 'unknown top-level key with a suggestion',
    lines: ['version: 1', 'websties:', '  - domain: a.com'],
    expected: error(2, 1, 'websties', `unknown key; did you mean "websites"? Allowed keys: ${TOP_KEYS}`),
  },
  {
    name: 'unknown key in defaults with a suggestion',
    lines: ['version: 1', 'defaults:', '  exclude_bot: true', 'websites:', '  - domain: a.com'],
    expected: error(
      3,
      3,
      'defaults.exclude_bot',
      `unknown key; did you mean "exclude_bots"? Allowed keys: ${SETTING_KEYS}`,
    ),
  },
  {
    name: 'unknown website key with a suggestion',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    exlude_ips: [203.0.113.7]'],
    expected: error(
      4,
      5,
      'websites[0].exlude_ips',
      `unknown key; did you mean "exclude_ips"? Allowed keys: ${SITE_KEYS}`,
    ),
  },
  {
    name: 'unknown key without a close match',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    colour: red'],
    expected: error(4, 5, 'websites[0].colour', `unknown key; allowed keys: ${SITE_KEYS}`),
  },
  {
    name: 'a setting at the top level points to defaults',
    lines: ['version: 1', 'privacy: public', 'websites: []'],
    expected: error(
      2,
      1,
      'privacy',
      `unknown key; settings go under "defaults:" or in a website entry. Allowed keys: ${TOP_KEYS}`,
    ),
  },
  {
    name: 'a domain in defaults',
    lines: ['version: 1', 'defaults:', '  domain: a.com', 'websites: []'],
    expected: error(
      3,
      3,
      'defaults.domain',
      `unknown key; a domain cannot have a default; list it under "websites:". Allowed keys: ${SETTING_KEYS}`,
    ),
  },
  {
    name: 'unsupported version',
    lines: ['version: 2', 'websites: []'],
    expected: error(1, 10, 'version', 'unsupported version 2; only version 1 is supported'),
  },
  {
    name: 'a version written as a reference or quoted',
    lines: ['version: "1"', 'websites: []'],
    expected: error(
      1,
      10,
      'version',
      'must be the number 1, written as it is (not quoted, not an environment variable reference)',
    ),
  },
  {
    name: 'a password written as a mapping',
    lines: [
      'version: 1',
      'websites:',
      '  - domain: a.com',
      '    privacy: password',
      '    password:',
      '      a: b',
    ],
    expected: error(6, 7, 'websites[0].password', 'must be a string (a list or a mapping is not a password)'),
  },
  {
    name: 'missing version',
    lines: ['websites:', '  - domain: a.com'],
    expected: error(1, 1, 'version', 'is required; add "version: 1"'),
  },
  {
    name: 'bad privacy',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    privacy: secret'],
    expected: error(
      4,
      14,
      'websites[0].privacy',
      'must be one of public, private, password (or 0, 1, 2); got "secret"',
    ),
  },
  {
    name: 'bad privacy code in defaults',
    lines: ['version: 1', 'defaults:', '  privacy: 3', 'websites: []'],
    expected: error(
      3,
      12,
      'defaults.privacy',
      'must be one of public, private, password (or 0, 1, 2); got 3',
    ),
  },
  {
    name: 'bad boolean',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    email: yes'],
    expected: error(4, 12, 'websites[0].email', 'must be true or false (or 1, 0); got "yes"'),
  },
  {
    name: 'bad prune',
    lines: ['version: 1', 'prune: 2', 'websites: []'],
    expected: error(2, 8, 'prune', 'must be true or false (or 1, 0); got 2'),
  },
  {
    name: 'bad IP in a list, located at the entry',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    exclude_ips: [203.0.113.7, 300.1.1.1]'],
    expected: error(4, 32, 'websites[0].exclude_ips[1]', 'must be an IPv4 or IPv6 address; got "300.1.1.1"'),
  },
  {
    name: 'bad IP in a one-per-line block, located at its line',
    lines: [
      'version: 1',
      'websites:',
      '  - domain: a.com',
      '    exclude_ips: |',
      '      203.0.113.7',
      '',
      '      10.0.0.0/8',
    ],
    expected: error(7, 7, 'websites[0].exclude_ips[2]', 'must be an IPv4 or IPv6 address; got "10.0.0.0/8"'),
  },
  {
    name: 'bad query parameter name',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    exclude_params: [utm_source, "a=b"]'],
    expected: error(
      4,
      34,
      'websites[0].exclude_params[1]',
      'must be a query parameter name (no whitespace, "&", "=", "?" or "#"); got "a=b"',
    ),
  },
  {
    name: 'a list that is neither a list nor a string',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    exclude_ips: {a: 1}'],
    expected: error(
      4,
      18,
      'websites[0].exclude_ips',
      'must be a list of strings or a one-per-line string; got a mapping',
    ),
  },
  {
    name: 'duplicate domain after canonicalisation names the first line',
    lines: ['version: 1', 'websites:', '  - domain: example.com', '  - domain: https://Example.COM:443/shop'],
    expected: error(4, 13, 'websites[1].domain', 'duplicate domain example.com: also declared at line 3'),
  },
  {
    name: 'domain without a dot',
    lines: ['version: 1', 'websites:', '  - domain: localhost'],
    expected: error(
      3,
      13,
      'websites[0].domain',
      'must be a domain name such as example.com; "localhost" has no dot',
    ),
  },
  {
    name: 'domain the service would refuse',
    lines: ['version: 1', 'websites:', '  - domain: bad_name.c_m'],
    expected: error(
      3,
      13,
      'websites[0].domain',
      'must be a domain name such as example.com; "bad_name.c_m" is not a domain the service accepts: labels of 1 to 63 characters separated by dots, the last of letters, digits and hyphens and not all digits',
    ),
  },
  {
    name: 'missing domain',
    lines: ['version: 1', 'websites:', '  - privacy: public'],
    expected: error(3, 5, 'websites[0].domain', 'is required; must be a domain name such as example.com'),
  },
  {
    name: 'a website that is not a mapping',
    lines: ['version: 1', 'websites:', '  - example.com'],
    expected: error(
      3,
      5,
      'websites[0]',
      'must be a mapping such as "- domain: example.com"; got "example.com"',
    ),
  },
  {
    name: 'privacy password without a password, located at the privacy',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    privacy: password'],
    expected: error(
      4,
      14,
      'websites[0].password',
      'privacy is password but no password is set; add "password: ${VARIABLE}" here or under defaults',
    ),
  },
  {
    name: 'privacy password from defaults without a password, located at the domain',
    lines: ['version: 1', 'defaults:', '  privacy: 2', 'websites:', '  - domain: a.com'],
    expected: error(
      5,
      13,
      'websites[0].password',
      'privacy is password but no password is set; add "password: ${VARIABLE}" here or under defaults',
    ),
  },
  {
    name: 'a password longer than the service allows',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    privacy: password', '    password: ${LONG}'],
    env: { LONG: 'x'.repeat(129) },
    expected: error(5, 15, 'websites[0].password', "must be at most 128 characters (the service's limit)"),
  },
  {
    name: 'a numeric password must be quoted',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    privacy: password', '    password: 1234'],
    expected: error(
      5,
      15,
      'websites[0].password',
      'must be a string (put it in quotes: YAML reads unquoted digits, true or false as another type)',
    ),
  },
  {
    name: 'an unset environment variable',
    lines: [
      'version: 1',
      'websites:',
      '  - domain: a.com',
      '    privacy: password',
      '    password: ${SHOP_PW}',
    ],
    expected: error(
      5,
      15,
      'websites[0].password',
      'environment variable SHOP_PW is not set; set it or give a default with ${SHOP_PW:-default}',
    ),
  },
  {
    name: 'a malformed reference',
    lines: ['version: 1', 'websites:', '  - domain: ${1X}.com'],
    expected: error(
      3,
      13,
      'websites[0].domain',
      'invalid reference "${1X}": expected ${NAME} or ${NAME:-default}; write $${ for a literal "${"',
    ),
  },
  {
    name: 'an alias whose anchor is not set: at the alias, not at the top of the file',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    privacy: *nope'],
    expected: error(4, 14, '', 'unresolved alias *nope: the anchor &nope must be set before the alias'),
  },
  {
    name: 'a listed domain that is also ignored',
    lines: [
      'version: 1',
      'ignore: ["*.staging.example.com"]',
      'websites:',
      '  - domain: A.Staging.example.com',
    ],
    expected: error(
      4,
      13,
      'websites[0].domain',
      'a.staging.example.com is listed but also matched by ignore pattern "*.staging.example.com" (ignore[0]); remove it from one of them',
    ),
  },
  {
    name: 'an empty ignore pattern',
    lines: ['version: 1', 'ignore: ["*.a.com", ""]', 'websites: []'],
    expected: error(
      2,
      21,
      'ignore[1]',
      'must be a glob pattern such as "*.staging.example.com"; got an empty string',
    ),
  },
  {
    name: 'a YAML syntax error',
    lines: ['version: 1', 'websites:', '  - domain: a.com: b'],
    expected: error(3, 13, '', 'Nested mappings are not allowed in compact mappings'),
  },
  {
    name: 'a tab used for indentation',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '\tprivacy: public'],
    expected: error(4, 1, '', 'Tabs are not allowed as indentation'),
  },
  {
    name: 'a duplicate YAML key',
    lines: ['version: 1', 'websites: []', 'version: 1'],
    expected: error(3, 1, 'version', `duplicate key "version": already set at line 1; ${ONCE}`),
  },
  {
    name: "a website's key written twice",
    lines: ['version: 1', 'websites:', '  - domain: a.com', '    privacy: public', '    privacy: private'],
    expected: error(5, 5, 'websites[0].privacy', `duplicate key "privacy": already set at line 4; ${ONCE}`),
  },
  {
    name: 'a key written twice in a flow mapping',
    lines: ['version: 1', 'websites:', '  - domain: a.com', '  - {domain: b.com, email: true, email: false}'],
    expected: error(4, 34, 'websites[1].email', `duplicate key "email": already set at line 4; ${ONCE}`),
  },
  {
    name: 'a root that is not a mapping',
    lines: ['- domain: a.com'],
    expected: error(
      1,
      1,
      '',
      'the manifest must be a mapping with the keys version, prune, ignore, defaults, websites; got a list',
    ),
  },
  {
    name: 'an alias bomb',
    lines: [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ],
    // At its first alias: where the expansion starts.
    expected: error(2, 8, '', 'Excessive alias count indicates a resource exhaustion attack'),
  },
  {
    name: 'a merge key whose source is not a mapping',
    lines: ['version: 1', 'defaults:', '  privacy: public', '  <<: [1, 2]', 'websites: []'],
    expected: error(4, 3, '', 'Merge sources must be maps or map aliases'),
  },
  {
    name: 'an empty file',
    lines: ['# nothing yet'],
    expected: error(1, 1, '', 'the manifest is empty; it needs at least "version: 1" and a "websites:" list'),
  },
];

describe('parseManifest problems', () => {
  it.each(cases)('$name', ({ lines, env, expected }) => {
    const result = parseLines(lines, env);
    expect(result.problems).toEqual([{ file: 'websites.yaml', ...expected }]);
    expect(result.desired).toBeUndefined();
  });
});

describe('warnings keep the manifest usable', () => {
  it('removes a leading www. with a warning', () => {
    const result = parseLines(['version: 1', 'websites:', '  - domain: www.Example.com']);
    expect(result.problems).toEqual([
      {
        severity: 'warning',
        file: 'websites.yaml',
        line: 3,
        column: 13,
        field: 'websites[0].domain',
        message:
          '"www." removed: the service stores this website as example.com; write "example.com" to silence this warning',
      },
    ]);
    expect(result.desired?.websites.map((w) => w.domain)).toEqual(['example.com']);
  });

  it('warns about a password with another privacy and does not keep it', () => {
    const result = parseLines(
      ['version: 1', 'websites:', '  - domain: a.com', '    privacy: public', '    password: ${PW}'],
      { PW: 'hunter2' },
    );
    expect(result.problems).toEqual([
      {
        severity: 'warning',
        file: 'websites.yaml',
        line: 5,
        column: 15,
        field: 'websites[0].password',
        message: 'password is ignored unless privacy is password; it will not be sent',
      },
    ]);
    expect(result.desired?.websites[0]).not.toHaveProperty('password');
  });

  it('warns about a password with a line break, which no one can type into the statistics page', () => {
    const result = parseLines(
      [
        'version: 1',
        'defaults:',
        '  privacy: password',
        '  password: ${FROM_FILE}',
        'websites:',
        '  - domain: a.com',
        '  - domain: b.com',
        '  - domain: c.com',
        '    password: ${OWN}',
      ],
      { FROM_FILE: 'pass-from-file-77\n', OWN: 'line\r\nbreak-88' },
    );
    const message =
      'password holds a line break (as a value read from a file often ends in one); it is sent as is, and no one can type it into the statistics page: remove the line break';
    expect(result.problems).toEqual([
      {
        severity: 'warning',
        file: 'websites.yaml',
        line: 4,
        column: 13,
        field: 'defaults.password',
        message,
      },
      {
        severity: 'warning',
        file: 'websites.yaml',
        line: 9,
        column: 15,
        field: 'websites[2].password',
        message,
      },
    ]);
    expect(result.desired?.websites.map((w) => w.password)).toEqual([
      'pass-from-file-77\n',
      'pass-from-file-77\n',
      'line\r\nbreak-88',
    ]);
  });

  it('warns about a default password that no website uses', () => {
    const result = parseLines([
      'version: 1',
      'defaults:',
      '  password: s3cret',
      'websites:',
      '  - domain: a.com',
    ]);
    expect(result.problems).toEqual([
      {
        severity: 'warning',
        file: 'websites.yaml',
        line: 3,
        column: 13,
        field: 'defaults.password',
        message:
          'password is ignored unless privacy is password, and no website with privacy password uses it',
      },
    ]);
    expect(result.desired?.websites[0]).not.toHaveProperty('password');
  });
});

describe('all problems at once', () => {
  it('reports zod, domain, duplicate, ignore, password and env problems together, sorted by line', () => {
    const result = parseLines([
      'version: 1',
      'ignore: ["old.example.com"]',
      'websites:',
      '  - domain: old.example.com',
      '    privacy: secret',
      '  - domain: a.com',
      '    exlude_ips: []',
      '  - domain: a.com.',
      '    privacy: password',
      '  - domain: b.com',
      '    email: ${EMAIL}',
      '  - domain: nodot',
    ]);
    expect(result.desired).toBeUndefined();
    expect(result.problems.map((p) => [p.line, p.field])).toEqual([
      [4, 'websites[0].domain'],
      [5, 'websites[0].privacy'],
      [7, 'websites[1].exlude_ips'],
      [8, 'websites[2].domain'],
      [9, 'websites[2].password'],
      [11, 'websites[3].email'],
      [12, 'websites[4].domain'],
    ]);
    expect(result.problems.every((p) => p.severity === 'error')).toBe(true);
  });

  it('never shows an interpolated password in a message', () => {
    const secret = 'correct-horse-battery-staple-'.repeat(5);
    const result = parseLines(
      [
        'version: 1',
        'websites:',
        '  - domain: a.com',
        '    privacy: password',
        '    password: ${PW}',
        '  - domain: b.com',
        '    password: ${PW}',
      ],
      { PW: secret },
    );
    expect(result.problems.map((p) => p.field)).toEqual(['websites[0].password', 'websites[1].password']);
    for (const problem of result.problems) expect(problem.message).not.toContain('correct-horse');
  });

  it('never quotes a value from the environment: a secret in the wrong field is named by its variable', () => {
    const secret = 'Other-Secret-Value-4242';
    const result = parseLines(
      [
        'version: 1',
        'websites:',
        '  - domain: a.com',
        '    privacy: ${SHOP_SECRET}',
        '    email: ${SHOP_SECRET}',
        '  - domain: x ${SHOP_SECRET}.com',
        "    exclude_ips: ['${SHOP_SECRET}']",
      ],
      { SHOP_SECRET: secret },
    );
    expect(result.problems.map((p) => p.field)).toEqual([
      'websites[0].privacy',
      'websites[0].email',
      'websites[1].domain',
      'websites[1].exclude_ips[0]',
    ]);
    for (const problem of result.problems) {
      expect(problem.message).not.toMatch(/other-secret/i);
      expect(problem.message).toContain('${SHOP_SECRET}');
    }
    expect(result.problems[0]?.message).toContain('the value of ${SHOP_SECRET} (not shown)');
    // Part of a value, quoted on its own, is hidden too; a short value is left (it hides nothing).
    const part = parseLines(
      ['version: 1', 'websites:', '  - domain: a.com', "    exclude_params: ['${A} ${B}']"],
      { A: 'Other-Secret-Value-4242', B: 'x' },
    );
    expect(part.problems).toHaveLength(1);
    expect(part.problems[0]?.message).not.toMatch(/other-secret/i);
    // Trimmed (a secret read from a file ends in a line feed), or in a domain's ASCII form.
    const spelled = parseLines(
      ['version: 1', 'websites:', '  - domain: "${PADDED}"', '  - domain: "${IDN}_bad.example.com"'],
      { PADDED: ' padded-secret-4242\n', IDN: 'ünïcödé-sëcret-4242' },
    );
    expect(spelled.problems.length).toBeGreaterThan(0);
    for (const problem of spelled.problems) {
      expect(problem.message).not.toContain('padded-secret');
      expect(problem.message).not.toContain('scret-4242');
    }
  });

  it('says a second document is not part of a manifest, at its "---", in the terms of the manifest', () => {
    const result = parseLines([
      'version: 1',
      'websites: []',
      '---',
      'version: 1',
      'websites:',
      '  - domain: a.com',
    ]);
    expect(result.desired).toBeUndefined();
    expect(result.problems).toMatchObject([{ severity: 'error', line: 3, column: 1 }]);
    expect(result.problems[0]?.message).toMatch(
      /^a second YAML document starts here: a manifest is one document/,
    );
    expect(result.problems[0]?.message).not.toMatch(/parseAllDocuments/);
    // After a document end marker ("..."), the second document needs no "---".
    const ended = parseLines(['version: 1', 'websites: []', '...', 'prune: true']);
    expect(ended.problems).toMatchObject([{ severity: 'error', line: 4, column: 1 }]);
    expect(ended.problems[0]?.message).toContain(
      'remove the "---" or "..." line that separates it from the first',
    );
  });

  it('quotes a value whose only reference is the escape $${: nothing in it came from the environment', () => {
    const result = parseLines(['version: 1', 'websites:', '  - domain: a.com', "    privacy: 'pub$${lic}'"]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]?.message).toContain('"pub${lic}"');
    expect(result.problems[0]?.message).not.toContain('not shown');
  });
});
