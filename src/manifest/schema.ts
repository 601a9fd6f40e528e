// The manifest's structure. Every object is strict: an unknown key (a typo such as `exlude_ips`)
// is an error, never silently ignored. The same schema produces the editor JSON Schema.
import { z } from 'zod';
import { expected } from './describe-value.js';
import {
  booleanSchema,
  domainSchema,
  excludeIpsSchema,
  excludeParamsSchema,
  ignorePatternSchema,
  passwordSchema,
  privacySchema,
} from './fields.js';
import { allowDeleteWithTrafficSchema, trafficGuardSchema, trafficWindowSchema } from './guards.js';
import { deleteDelaySchema, LIFECYCLE_KEYS, lifecycleSchemas } from './lifecycle.js';

export const settingSchemas = {
  privacy: privacySchema,
  password: passwordSchema,
  email: booleanSchema('Periodic e-mail reports: true or false (or 1, 0).'),
  exclude_bots: booleanSchema('Exclude common bots from tracking: true or false (or 1, 0).'),
  exclude_params: excludeParamsSchema,
  exclude_ips: excludeIpsSchema,
};

export type SettingKey = keyof typeof settingSchemas;
export const SETTING_KEYS = Object.keys(settingSchemas) as SettingKey[];

const optionalSettings = {
  privacy: settingSchemas.privacy.optional(),
  password: settingSchemas.password.optional(),
  email: settingSchemas.email.optional(),
  exclude_bots: settingSchemas.exclude_bots.optional(),
  exclude_params: settingSchemas.exclude_params.optional(),
  exclude_ips: settingSchemas.exclude_ips.optional(),
  protect: lifecycleSchemas.protect.optional(),
  observe: lifecycleSchemas.observe.optional(),
  ignore_fields: lifecycleSchemas.ignore_fields.optional(),
};

export const defaultsSchema = z.strictObject(optionalSettings, {
  error: (iss) =>
    iss.code === 'invalid_type' ? expected('must be a mapping of settings', iss.input) : undefined,
});

export const websiteSchema = z
  .strictObject(
    {
      domain: domainSchema,
      ...optionalSettings,
      allow_delete_with_traffic: allowDeleteWithTrafficSchema.optional(),
    },
    {
      error: (iss) =>
        iss.code === 'invalid_type'
          ? expected('must be a mapping such as "- domain: example.com"', iss.input)
          : undefined,
    },
  )
  .describe('One tracked website; settings it leaves out come from defaults, then from the service.');

export const manifestSchema = z
  .strictObject({
    version: z
      .literal(1, {
        error: (iss) =>
          iss.input === undefined
            ? 'is required; add "version: 1"'
            : typeof iss.input === 'string' && iss.input.trim() === '1'
              ? 'must be the number 1, written as it is (not quoted, not an environment variable reference)'
              : `unsupported version ${JSON.stringify(iss.input)}; only version 1 is supported`,
      })
      .describe('Format version of this file; only 1 exists.'),
    prune: booleanSchema(
      'Delete websites of the account that are not listed (and not ignored). Default false.',
    ).optional(),
    delete_delay: deleteDelaySchema.optional(),
    traffic_window: trafficWindowSchema.optional(),
    traffic_guard: trafficGuardSchema.optional(),
    ignore: z
      .array(ignorePatternSchema, { error: (iss) => expected('must be a list of glob patterns', iss.input) })
      .nullish()
      .describe('Glob patterns of domains that are never created, changed or deleted.'),
    defaults: defaultsSchema
      .nullish()
      .describe('Settings applied to every listed website that does not set them itself.'),
    websites: z
      .array(websiteSchema, {
        error: (iss) => expected('must be a list of websites such as "- domain: example.com"', iss.input),
      })
      .nullish()
      .describe('The websites the account must track.'),
  })
  .describe('websites-sync manifest: the tracked websites of one account.');

export type ManifestInput = z.input<typeof manifestSchema>;
export type Manifest = z.output<typeof manifestSchema>;

export const MANIFEST_KEYS = Object.keys(manifestSchema.shape);
export const WEBSITE_KEYS = Object.keys(websiteSchema.shape);
/** What `defaults:` may hold: every setting and every lifecycle key. */
export const DEFAULTS_KEYS: readonly string[] = [...SETTING_KEYS, ...LIFECYCLE_KEYS];
