// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// The fast reader must never disagree with `yaml`: for every text it accepts, the data is exactly
// what `yaml` reads; everything else it hands back (undefined) for the full parser to handle.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readSimpleYaml } from '../../src/manifest/fast-yaml.js';
import { parseManifest, parseManifestWithPositions } from '../../src/manifest/index.js';
import { MANIFEST_KEYS, WEBSITE_KEYS } from '../../src/manifest/schema.js';
import { generator } from '../helpers/seeded.js';

const KEYS = [...new Set([...MANIFEST_KEYS, ...WEBSITE_KEYS, 'a', 'b', 'c', 'd', 'e', '__proto__'])];

/** What `yaml` reads (as the manifest stage calls it), or undefined when it reports an error. */
function yamlData(text: string): unknown {
  try {
    return parse(text, { merge: true });
  } catch {
    return undefined;
  }
}

function expectAgreement(text: string): unknown {
  const fast = readSimpleYaml(text, KEYS);
  if (fast !== undefined) expect(fast).toStrictEqual(yamlData(text));
  return fast;
}

const ACCEPTED = [
  'a: 1\nb: x\n',
  'version: 1\nwebsites:\n- domain: a.com\n  email: yes\n- domain: b.com\n',
  'a: |\n  x\n\n  y\n\n\nb: 1\n',
  "a: |-\n  x\n  y\nb: [1, \"2\", '3''', x y]\n",
  'a:\n  - [ ]\n  - []\n  -\n  - null\n  - ~\n  - True\n  - FALSE\n',
  'a: "x # y" # c\nb: x#y\nc: x #y\n',
  'a: 2001:db8::1\nb: http://x.com/a?b=c\n',
  'a:\n  b:\n    c: 1\n  d: 2\ne: 3\n',
  'a: |\n  x\n # comment\nb: 1\n',
  'a: |\n  x\n  # not a comment\nb: 1\n',
  'a: ${X}\nb: $${Y}\nc: ${X:-d}\n',
  'a:\n  - b: 1\n    c: 2\n  - d\n',
  'a: 1 # c\n# c2\n  # c3\nb: 2\n',
  'a:    \n  b: 1\n',
  'a: |\n\n  x\n',
  'a:\n  -   b: 1\n      c: 2\n',
  'a: [ "x" , y ]  # c\n',
  'a: x \n',
  'a: \'\'\nb: ""\n',
  'a: 0\n',
  'a: |\n  x\nb:\n- 1\n',
  'a: x\r\nb: y\r\n',
  'a:\nb: ~\n',
  'a: -x\nb: x-\n',
];

const DECLINED = [
  'a: bücher.example\n',
  'a: x\u00a0\n',
  'a: 0123\n',
  'a: 1.5\n',
  'a: -1\n',
  'a: .inf\n',
  'a: 1e3\n',
  'a: 0x10\n',
  'a: 12345678901234567\n',
  'a: x\n  y\n',
  'a: "unterminated\n',
  'a: "esc\\"aped"\n',
  'a: [a,b,]\n',
  'a: [a, [b]]\n',
  'a: {b: 1}\n',
  '- a\n',
  'a: 1\na: 2\n',
  'a: &x 1\nb: *x\n',
  '---\na: 1\n',
  'a: 1\n...\n',
  'a: b: c\n',
  '# only a comment\n',
  '',
  'a: |\n  \n  x\n',
  'a: |+\n  x\n',
  'a: >\n  x\n',
  'a: !!str 1\n',
  '__proto__: 1\n',
  'unknown: 1\n',
  'a:\tx\n',
  '\uFEFFa: 1\n',
  'a: b\rc\n',
  'a: ? x\n',
  'a: "x"y\n',
  "a: 'x'#c\n",
];

describe('readSimpleYaml', () => {
  it.each(ACCEPTED)('reads %j exactly as yaml does', (text) => {
    expect(expectAgreement(text)).not.toBeUndefined();
  });

  it.each(DECLINED)('leaves %j to yaml', (text) => {
    expect(readSimpleYaml(text, KEYS)).toBeUndefined();
  });

  it('reads the example manifest exactly as yaml does', () => {
    const text = readFileSync(new URL('../../examples/websites.yaml', import.meta.url), 'utf8');
    expect(expectAgreement(text)).not.toBeUndefined();
  });

  it('tells where each scalar value starts', () => {
    const seen: Array<[string, number, number]> = [];
    readSimpleYaml('a: 1\nb:\n  - c: "x"\n    d:   [1]\n', KEYS, (_map, key, line, column) => {
      seen.push([key, line, column]);
    });
    expect(seen).toEqual([
      ['a', 1, 4],
      ['c', 3, 8],
      ['d', 4, 10],
    ]);
  });

  it('never disagrees with yaml on generated and mangled manifests', () => {
    const { random, pick } = generator(42);
    const scalars = [
      'x.com',
      'true',
      'False',
      '~',
      'null',
      '0',
      '12',
      '007',
      '1.5',
      '"q"',
      "'it''s'",
      'a b',
      'x #c',
      '-x',
      '${V}',
      '"a: b"',
      ': x',
      'a:b',
    ];
    const lists = ['[]', '[a, b]', '["2001:db8::1", x]', '[a,]', '[ a , "b" ]'];
    let accepted = 0;
    for (let n = 0; n < 400; n++) {
      const lines = ['version: 1', pick(['websites:', 'websites: ', 'websites: # c'])];
      const indent = pick(['', '  ', '    ']);
      for (let w = 0; w < 4; w++) {
        lines.push(`${indent}- domain: ${pick(scalars)}`);
        if (random() < 0.5) lines.push(`${indent}  email: ${pick(scalars)}`);
        if (random() < 0.4) lines.push(`${indent}  exclude_ips: ${pick(lists)}`);
        if (random() < 0.3) lines.push(`${indent}  exclude_params: |`, `${indent}    a`, `${indent}    b`);
        if (random() < 0.3)
          lines.push(`${indent}  exclude_params:`, `${indent}  - a`, `${indent}  - ${pick(scalars)}`);
        if (random() < 0.2) lines.push(pick(['', '# comment', '   ', `${indent}   # c`]));
      }
      // Mangle one line in three: the reader must decline or still agree.
      if (random() < 0.33) {
        const at = Math.floor(random() * lines.length);
        const line = lines[at]!;
        const cut = Math.floor(random() * (line.length + 1));
        lines[at] =
          `${line.slice(0, cut)}${pick([' ', ':', '-', '"', "'", '#', '[', '|', '  ', ''])}${line.slice(cut)}`;
      }
      if (expectAgreement(`${lines.join('\n')}\n`) !== undefined) accepted++;
    }
    // The generator is meant to exercise the fast path, not only its refusals.
    expect(accepted).toBeGreaterThan(40);
  });
});

describe('parseManifest: the fast path and the full path agree', () => {
  const manifests = [
    [
      'version: 1',
      'websites:',
      '  - domain: example.com',
      '    privacy: public',
      '  - domain: "b.example.com"',
    ],
    [
      'version: 1',
      'prune: true',
      'ignore: ["*.staging.example.com"]',
      'defaults:',
      '  privacy: password',
      '  password: ${PW}',
      'websites:',
      '- domain: a.example.com',
      '  exclude_ips: [203.0.113.7, "2001:db8::1"]',
      '- domain: c.example.com',
      '  exclude_params: |',
      '    utm_source',
      '    fbclid',
    ],
    ['version: 1', 'websites:'],
    ['version: 1', 'websites: []'],
  ];

  it.each(manifests)('gives the same result for manifest %#', (...lines) => {
    const text = `${lines.join('\n')}\n`;
    const options = { file: 'websites.yaml', env: { PW: 'secret' } };
    expect(readSimpleYaml(text, KEYS)).not.toBeUndefined();
    expect(parseManifest(text, options)).toStrictEqual(parseManifestWithPositions(text, options));
  });

  it.each([
    ['a warning', ['version: 1', 'websites:', '  - domain: www.example.com']],
    ['an unknown key', ['version: 1', 'websites:', '  - domain: example.com', '    exlude_ips: []']],
    ['an invalid value', ['version: 1', 'websites:', '  - domain: example.com', '    email: maybe']],
    ['a duplicate', ['version: 1', 'websites:', '  - domain: a.com', '  - domain: A.com']],
    ['a missing variable', ['version: 1', 'websites:', '  - domain: ${NOPE}']],
    ['no version', ['websites:', '  - domain: a.com']],
  ])('reports %s with its position, as the full path does', (_name, lines) => {
    const text = `${lines.join('\n')}\n`;
    const options = { file: 'websites.yaml', env: {} };
    const result = parseManifest(text, options);
    expect(result.problems.length).toBeGreaterThan(0);
    expect(result).toStrictEqual(parseManifestWithPositions(text, options));
  });
});

describe('one reading of the manifest (issue 10 §2)', () => {
  const options = { file: 'websites.yaml', env: { PW: 'pw', V: 'v.example.com' } };
  /** The meaning of a manifest: what the run would use, whichever reader read it. */
  const meaning = (text: string) => {
    const { desired, problems } = parseManifest(text, options);
    return { desired, errors: problems.filter((p) => p.severity === 'error').length };
  };
  const full = (text: string) => {
    const { desired, problems } = parseManifestWithPositions(text, options);
    return { desired, errors: problems.filter((p) => p.severity === 'error').length };
  };

  it.each(['00a0', '2003', '3000', '2028', '000b', '000c', 'feff'])(
    'an ignore pattern ending in U+%s means the same with or without an unrelated www. website',
    (code) => {
      const space = String.fromCharCode(Number.parseInt(code, 16));
      const base = ['version: 1', 'prune: true', `ignore: [legacy.example.com${space}]`, 'websites:'];
      const plain = `${[...base, '  - domain: a.example.com'].join('\n')}\n`;
      const warned = `${[...base, '  - domain: a.example.com', '  - domain: www.b.example.com'].join('\n')}\n`;
      expect(meaning(plain)).toStrictEqual(full(plain));
      expect(meaning(warned)).toStrictEqual(full(warned));
      expect(meaning(plain).desired?.ignore).toStrictEqual(meaning(warned).desired?.ignore);
    },
  );

  it('gives every generated manifest one meaning, whichever reader reads it', () => {
    const { random, pick } = generator(7);
    const spaces = [' ', '  ', '\u00a0', '\u2003', '\u3000', '\t', '\u000b', ''];
    const domains = [
      'a.example.com',
      '"b.example.com"',
      "'c.example.com'",
      'bücher.example',
      '${V}',
      'www.d.example.com',
    ];
    const values = [
      'true',
      'false',
      '1',
      '0',
      'yes',
      '"x"',
      'private',
      'public',
      '&anchor private',
      '*anchor',
    ];
    for (let n = 0; n < 300; n++) {
      const lines = [
        'version: 1',
        `ignore: [${pick(domains)}${pick(spaces)}, "*.staging.example.com"]`,
        'websites:',
      ];
      for (let w = 0; w < 3; w++) {
        const domain = `${pick(domains).replace(/^[a-z]/, (c) => `${c}${w}`)}${pick(spaces)}`;
        if (random() < 0.2) lines.push(`  - {domain: ${domain}, email: ${pick(['true', 'false'])}}`);
        else lines.push(`  - domain: ${domain}`);
        if (random() < 0.5) lines.push(`    privacy: ${pick(values)}${pick(spaces)}`);
        if (random() < 0.3)
          lines.push(`    password: ${pick(['${PW}', 'p\u00a0w', '"p w"', 'pw'])}${pick(spaces)}`);
        if (random() < 0.3) lines.push(`    exclude_params: [utm${pick(spaces)}, "fb clid"]`);
        if (random() < 0.2) lines.push(pick(['# comment', `    # c${pick(spaces)}`, '']));
      }
      const text = `${lines.join('\n')}\n`;
      expect(meaning(text), text).toStrictEqual(full(text));
    }
  });
});
