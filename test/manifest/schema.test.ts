import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { manifestJsonSchema, manifestSchema } from '../../src/manifest/index.js';

describe('editor JSON Schema', () => {
  it('is committed as generated (run: npm run build && npm run schema)', async () => {
    const committed = await readFile(new URL('../../schema/websites.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(`${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
  });

  it('rejects unknown keys at every level and accepts names or codes', () => {
    const schema = manifestJsonSchema() as {
      $id: string;
      additionalProperties: boolean;
      properties: Record<string, { anyOf?: Array<Record<string, unknown>> }>;
    };
    expect(schema.$id).toBe('urn:websites-sync:manifest:v1');
    expect(schema.additionalProperties).toBe(false);
    const defaults = schema.properties.defaults?.anyOf?.[0] as {
      additionalProperties: boolean;
      properties: object;
    };
    expect(defaults.additionalProperties).toBe(false);
    expect(JSON.stringify(defaults.properties)).toContain('"enum":["public","private","password"]');
  });

  it('outputs what the service takes from the lenient input', () => {
    const parsed = manifestSchema.parse({
      version: 1,
      websites: [
        {
          domain: 'WWW.Example.com',
          privacy: 'password',
          password: 'x',
          email: '1',
          exclude_ips: 'b::1\n1.1.1.1',
        },
      ],
    });
    expect(parsed.websites?.[0]).toEqual({
      domain: 'example.com',
      privacy: 2,
      password: 'x',
      email: true,
      exclude_ips: ['1.1.1.1', 'b::1'],
    });
  });
});
