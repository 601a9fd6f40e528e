// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
// The editor schema as users get it (schema/websites.schema.json, what `websites-sync schema` prints),
// checked by a real JSON Schema validator: every manifest the project shows passes, broken ones fail,
// and on generated manifests the schema never rejects one that validate accepts.
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { exportManifest } from '../../src/export/index.js';
import { parseManifest } from '../../src/manifest/index.js';
import { remoteSite } from '../helpers/builders.js';
import { generator } from '../helpers/seeded.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

const ajv = new Ajv2020({ strict: true, allErrors: true });
// The message editors show for a failed pattern (VS Code / yaml-language-server); no rule of its own.
ajv.addKeyword({ keyword: 'patternErrorMessage', schemaType: 'string' });
const validateSchema = ajv.compile(JSON.parse(read('schema/websites.schema.json')));

/** What the schema says of a manifest's text, as an editor reads it (YAML, merge keys, no interpolation). */
function schemaAccepts(text: string): boolean {
  return validateSchema(parse(text, { merge: true }));
}

const ENV = {
  SHOP_STATS_PASSWORD: 'secret',
  WEBSITES_SYNC_PASSWORD_SHOP_EXAMPLE_COM: 'secret',
  PRIV: 'private',
  IPS: '192.0.2.1\n::1',
  EMPTY: '',
};

function validateAccepts(text: string): boolean {
  const { problems } = parseManifest(text, { file: 'websites.yaml', env: ENV });
  return !problems.some((problem) => problem.severity === 'error');
}

/** The pages users read: the README and every page of docs/. */
const PAGES = [
  'README.md',
  ...readdirSync(new URL('../../docs/', import.meta.url), { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The manifests the project shows users: README and docs, examples, the Kubernetes ConfigMap, an export. */
function shownManifests(): Array<[string, string]> {
  const readme = PAGES.flatMap((page) =>
    [...read(page).matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((match) => match[1] ?? '')
      .filter((block) => /^version: 1$/m.test(block))
      .map((block): [string, string] => [page, block]),
  );
  const configMap = parse(read('examples/kubernetes/configmap.yaml')).data['websites.yaml'] as string;
  const exported = exportManifest(
    [
      remoteSite(1, 'example.com', { privacy: 0, email: true, exclude_ips: ['203.0.113.7', '2001:db8::1'] }),
      remoteSite(2, 'shop.example.com', { privacy: 2, hasPassword: true }),
    ],
    { baseUrl: 'https://stats.example.com', version: '0.1.0', now: new Date(0) },
  ).text;
  return [
    ['examples/websites.yaml', read('examples/websites.yaml')],
    ...readme.map(([page, block], index): [string, string] => [`${page} manifest ${index + 1}`, block]),
    ['examples/kubernetes/configmap.yaml', configMap],
    ['export', exported],
  ];
}

describe('the editor schema, checked by ajv', () => {
  it.each(shownManifests())('accepts %s, which validate accepts', (_name, text) => {
    expect(validateAccepts(text)).toBe(true);
    expect(validateSchema(parse(text, { merge: true })), ajv.errorsText(validateSchema.errors)).toBe(true);
  });

  it('finds the manifests of the README and docs', () => {
    expect(shownManifests().length).toBeGreaterThanOrEqual(5);
  });

  const ACCEPTED = {
    'privacy from the environment': 'privacy: ${PRIV:-public}',
    'a boolean from the environment': 'email: ${EMAIL:-true}',
    'IP addresses from the environment': 'exclude_ips: ${IPS}',
    'an IP address among others': 'exclude_ips: ["192.0.2.1", "${MORE_IP:-::1}", "fe80::1%eth0"]',
    'a one-per-line string': 'exclude_params: "utm_source\\n  fbclid\\n\\n"',
    'a password of 128 characters': `password: "${'x'.repeat(128)}"`,
    'an ignored field from the environment': 'ignore_fields: ["${FIELD:-email}"]',
  };

  it.each(Object.entries(ACCEPTED))('accepts %s', (_name, line) => {
    const text = `version: 1\nwebsites:\n  - domain: example.com\n    ${line}\n`;
    expect(validateAccepts(text)).toBe(true);
    expect(schemaAccepts(text)).toBe(true);
  });

  it.each([
    ['a domain from the environment', '${DOMAIN:-example.com}'],
    ['a URL', 'https://www.Example.com:8443/path'],
    ['an IDN', 'bücher.example'],
    ['an underscore in a label', 'under_score.example.com'],
  ])('accepts %s as the domain', (_name, domain) => {
    const text = `version: 1\nwebsites:\n  - domain: "${domain}"\n`;
    expect(validateAccepts(text)).toBe(true);
    expect(schemaAccepts(text)).toBe(true);
  });

  const BROKEN = {
    'a bad IP address': 'exclude_ips: ["192.0.2.300"]',
    'a bad IP address among lines': 'exclude_ips: "192.0.2.1\\n10.0.0.x"',
    'a bad parameter name': 'exclude_params: ["utm source"]',
    'a parameter with "="': 'exclude_params: "a=b"',
    'a bad privacy': 'privacy: secret',
    'an unknown field': 'exlude_ips: []',
    'a password too long': `password: "${'x'.repeat(129)}"`,
    'an unknown ignored field': 'ignore_fields: [emial]',
    'a malformed reference': 'privacy: "${PRIV"',
    'a reference without a name': 'exclude_ips: ["${:-1.1.1.1}"]',
  };

  it.each(Object.entries(BROKEN))('rejects %s, as validate does', (_name, line) => {
    const text = `version: 1\nwebsites:\n  - domain: example.com\n    ${line}\n`;
    expect(validateAccepts(text)).toBe(false);
    expect(schemaAccepts(text)).toBe(false);
  });

  it.each([
    ['no dot', 'localhost'],
    ['a bad last label', 'example.c_m'],
    ['nothing', ''],
  ])('rejects a domain with %s', (_name, domain) => {
    const text = `version: 1\nwebsites:\n  - domain: "${domain}"\n`;
    expect(validateAccepts(text)).toBe(false);
    expect(schemaAccepts(text)).toBe(false);
  });

  it.each([
    ['a bad delete_delay', 'delete_delay: 1 day'],
    ['a version 2', 'version: 2'],
    ['an unknown top-level key', 'purne: true'],
  ])('rejects %s', (_name, line) => {
    const text = `${line.startsWith('version') ? '' : 'version: 1\n'}${line}\n`;
    expect(validateAccepts(text)).toBe(false);
    expect(schemaAccepts(text)).toBe(false);
  });
});

// Values for each key: valid and invalid ones, written plainly and through references.
const VALUES: Record<string, readonly unknown[]> = {
  privacy: [
    'public',
    'password',
    1,
    '2',
    'secret',
    3,
    '${PRIV}',
    '${NOPE:-private}',
    '${NOPE:-secret}',
    '$${PRIV}',
  ],
  password: ['pw', '', 'x'.repeat(129), 123, '${SHOP_STATS_PASSWORD}', '${UNSET}', '${EMPTY:-pw}'],
  email: [true, false, 0, 1, 'true', 'yes', 2, '${NOPE:-true}', '${PRIV}'],
  exclude_bots: [true, '0', 'no', '${NOPE:-false}'],
  exclude_params: [
    ['utm_source', ' fbclid '],
    'a\n b\n',
    ['a b'],
    'a=b',
    null,
    [1],
    '${NOPE:-x}',
    ['${P:-a}'],
  ],
  exclude_ips: [
    ['192.0.2.1', '::1'],
    '192.0.2.1\n\n::1',
    ['300.1.1.1'],
    '1.2.3.4 5.6.7.8',
    '${IPS}',
    ['${NOPE:-1.1.1.1}'],
    null,
  ],
  protect: [true, 'false', 'maybe', '${NOPE:-true}'],
  observe: [false, 1, '${NOPE:-1}'],
  ignore_fields: [['email'], ['emial'], ['domain'], 'email', ['${NOPE:-email}']],
  exlude_ips: [[]],
};
const DOMAINS: readonly unknown[] = [
  'example.com',
  'WWW.Example.org',
  'https://shop.example.net/path',
  'bücher.example',
  'under_score.example.com',
  'localhost',
  'example.c_m',
  '',
  42,
  '${DOMAIN:-a.example}',
  'x.example',
];
const TOP: Record<string, readonly unknown[]> = {
  version: [1, 1, 1, '1', 2],
  prune: [true, 'false', 1, 'yes', '${NOPE:-true}'],
  delete_delay: ['24h', '0', 0, '1h30m', '1 day', 5, '${NOPE:-1h}'],
  ignore: [['*.staging.example.com'], [], null, 'x', ['x.example']],
};

function generatedManifest(seed: number): string {
  const { random, pick } = generator(seed);
  const sometimes = <T>(values: readonly T[], chance: number): T[] =>
    random() < chance ? [pick(values)] : [];
  const settings = () =>
    Object.fromEntries(
      Object.entries(VALUES).flatMap(([key, values]) => sometimes(values, 0.25).map((v) => [key, v])),
    );
  const data: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(TOP)) {
    for (const value of sometimes(values, key === 'version' ? 0.95 : 0.3)) data[key] = value;
  }
  if (random() < 0.3) data.defaults = settings();
  data.websites = Array.from({ length: Math.floor(random() * 3) }, () => ({
    domain: pick(DOMAINS),
    ...settings(),
  }));
  return stringify(data);
}

// 3,000 manifests each way: CPU-bound, 10 s on a loaded machine; more than the default 30 s allowed.
describe('the editor schema against validate, on generated manifests', { timeout: 90_000 }, () => {
  it('never rejects a manifest validate accepts', () => {
    let accepted = 0;
    let bothReject = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const text = generatedManifest(seed);
      const valid = validateAccepts(text);
      const schemaValid = schemaAccepts(text);
      if (valid) {
        expect({ text, errors: ajv.errorsText(validateSchema.errors) }).toEqual({
          text,
          errors: 'No errors',
        });
        accepted++;
      } else if (!schemaValid) {
        bothReject++;
      }
    }
    // Both outcomes must be common, or the comparison proves little.
    expect(accepted).toBeGreaterThan(200);
    expect(bothReject).toBeGreaterThan(1000);
  });
});

// The schema and validate read `${...}` alike in every string of the manifest, restricted or free
// text: a value whose references resolve to a valid one passes both, a malformed reference fails both.
describe('the editor schema and validate agree on references, field by field', () => {
  const env = {
    PW: 'secret',
    PARAM: 'utm_source',
    IP: '192.0.2.1',
    DOMAIN: 'example.com',
    GLOB: '*.staging.example.com',
    PRIV: 'private',
    FIELD: 'email',
    DELAY: '24h',
  };
  const MALFORMED = [
    '${PW',
    '${1}',
    '${}',
    '${PW:default}',
    'a${',
    '${PW:-x',
    'x${PW}y${',
    '${-x}',
    '${ PW }',
  ];
  /** Per field: where the value goes, values valid as written, and the variable holding a valid one. */
  const FIELDS: Array<[string, (value: string) => unknown, string[], string]> = [
    [
      'password',
      (v) => site({ privacy: 'password', password: v }),
      ['pw', 'a$b', '$', '$$', '$PW', 'x$${y'],
      'PW',
    ],
    ['an exclude_params item', (v) => site({ exclude_params: [v] }), ['fbclid', 'a$b', '$$${x}'], 'PARAM'],
    ['exclude_params lines', (v) => site({ exclude_params: `gclid\n${v}` }), ['fbclid', '$x'], 'PARAM'],
    [
      'an ignore item',
      (v) => ({ version: 1, ignore: [v], websites: [] }),
      ['*.example.org', '$x', '$${x}'],
      'GLOB',
    ],
    ['an exclude_ips item', (v) => site({ exclude_ips: [v] }), ['::1', '203.0.113.7'], 'IP'],
    ['the domain', (v) => ({ version: 1, websites: [{ domain: v }] }), ['example.org'], 'DOMAIN'],
    ['privacy', (v) => site({ privacy: v }), ['public', '1'], 'PRIV'],
    ['an ignore_fields item', (v) => site({ ignore_fields: [v] }), ['email'], 'FIELD'],
    ['delete_delay', (v) => ({ version: 1, delete_delay: v, websites: [] }), ['1h30m', '0'], 'DELAY'],
  ];
  function site(settings: Record<string, unknown>) {
    return { version: 1, websites: [{ domain: 'example.com', ...settings }] };
  }
  const accepts = (data: unknown) => {
    const text = stringify(data);
    const { problems } = parseManifest(text, { file: 'websites.yaml', env });
    return { validate: !problems.some((p) => p.severity === 'error'), schema: schemaAccepts(text) };
  };

  it.each(FIELDS)('%s', (_field, place, plain, variable) => {
    const values = [
      ...plain,
      `\${${variable}}`,
      `\${UNSET_VARIABLE:-${plain[0]}}`,
      ...MALFORMED,
      ...MALFORMED.map((bad) => `${plain[0]}${bad}`),
    ];
    const verdicts = values.map((value) => ({ value, ...accepts(place(value)) }));
    expect(verdicts.filter((v) => v.validate !== v.schema)).toEqual([]);
    // Both outcomes occur, or the comparison proves little.
    expect(verdicts.filter((v) => v.validate).length).toBeGreaterThanOrEqual(plain.length + 2);
    expect(verdicts.filter((v) => !v.validate).length).toBeGreaterThanOrEqual(MALFORMED.length);
  });
});
