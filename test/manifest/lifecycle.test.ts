import { describe, expect, it } from 'vitest';
import { parseManifestWithPositions } from '../../src/manifest/index.js';
import { parseLines } from './helpers.js';

const base = [
  'version: 1',
  'delete_delay: 1h30m',
  'defaults:',
  '  protect: true',
  '  ignore_fields: [email]',
  'websites:',
  '  - domain: a.example',
  '  - domain: b.example',
  '    protect: false',
  '    observe: true',
  '    ignore_fields: [exclude_ips]',
];

describe('lifecycle keys: protect, observe, ignore_fields, delete_delay', () => {
  it('resolve own value, else defaults, the same on the fast and the full path', () => {
    const fast = parseLines(base);
    expect(fast.problems).toEqual([]);
    const desired = fast.desired!;
    expect(desired.deleteDelayMs).toBe(90 * 60_000);
    expect(desired.websites[0]).toMatchObject({ protect: true, ignoreFields: ['email'] });
    expect(desired.websites[0]!.observe).toBeUndefined();
    expect(desired.websites[1]).toMatchObject({
      protect: false,
      observe: true,
      ignoreFields: ['exclude_ips'],
    });
    const full = parseManifestWithPositions(`${base.join('\n')}\n`, { file: 'websites.yaml', env: {} });
    expect(full.desired).toEqual(desired);
  });

  it('reject an unknown field name with a suggestion, and the domain with a reason', () => {
    const result = parseLines(base.map((line) => line.replace('[exclude_ips]', '[exlude_ips, domain]')));
    expect(result.desired).toBeUndefined();
    const messages = result.problems.map((p) => `${p.line}: ${p.field}: ${p.message}`);
    expect(messages).toEqual([
      expect.stringMatching(
        /^11: websites\[1\]\.ignore_fields\[0\]: unknown field "exlude_ips"; did you mean "exclude_ips"\?/,
      ),
      expect.stringMatching(/^11: websites\[1\]\.ignore_fields\[1\]: "domain" cannot be ignored/),
    ]);
  });

  it('reject a delete_delay that is not a duration, and suggest lifecycle keys under defaults', () => {
    const result = parseLines(
      base.map((line) => line.replace('1h30m', 'soon').replace('  protect: true', '  protcet: true')),
    );
    expect(result.problems.map((p) => `${p.line}: ${p.field}: ${p.message}`)).toEqual([
      expect.stringMatching(/^2: delete_delay: must be a duration such as 24h/),
      expect.stringMatching(/^4: defaults\.protcet: unknown key; did you mean "protect"\?/),
    ]);
  });

  // One range for the delay, whether the manifest or --delete-delay / WEBSITES_SYNC_DELETE_DELAY sets it.
  it.each(['366d', '9999d', '200000000d', '8761h'])(
    'reject a delete_delay beyond 365d (%s), on its line, naming the allowed range',
    (delay) => {
      const result = parseLines(base.map((line) => line.replace('1h30m', delay)));
      expect(result.desired).toBeUndefined();
      expect(result.problems.map((p) => `${p.line}: ${p.field}: ${p.message}`)).toEqual([
        `2: delete_delay: must be a duration from 0 to 365d; got "${delay}"`,
      ]);
    },
  );

  it('accept a delete_delay of 0 and of exactly 365d', () => {
    for (const [delay, ms] of [
      ['0', 0],
      ['365d', 365 * 86_400_000],
      ['8760h', 365 * 86_400_000],
    ] as const) {
      const result = parseLines(base.map((line) => line.replace('1h30m', delay)));
      expect(result.problems).toEqual([]);
      expect(result.desired?.deleteDelayMs).toBe(ms);
    }
  });

  it('refuse ignoring the password of a website whose privacy is password', () => {
    const result = parseLines([
      'version: 1',
      'websites:',
      '  - domain: a.example',
      '    privacy: password',
      '    ignore_fields: [password]',
    ]);
    expect(result.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      expect.stringMatching(/^3: password is in ignore_fields but privacy is password/),
    ]);
  });
});
