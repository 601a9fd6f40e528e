// The service's input middleware and form-request rules, with Laravel's message wording, so that
// clients meet the same 422 bodies they will meet in production.
import { serviceAcceptsDomain } from '../model/index.js';

/** A form after the input middleware: strings trimmed (not the password), empty strings null. */
export type FormInput = Record<string, string | null>;
export type FieldErrors = Record<string, string[]>;

/** Fields Laravel's TrimStrings middleware leaves alone. */
const UNTRIMMED = new Set(['password', 'password_confirmation', 'current_password']);

export function applyInputMiddleware(body: Record<string, string>): FormInput {
  const input: FormInput = {};
  for (const [key, raw] of Object.entries(body)) {
    const value = UNTRIMMED.has(key) ? raw : raw.trim();
    input[key] = value === '' ? null : value;
  }
  return input;
}

/** Laravel shows `exclude_bots` as "exclude bots" in messages. */
function label(field: string): string {
  return field.replaceAll('_', ' ');
}

export const messages = {
  required: (f: string) => `The ${label(f)} field is required.`,
  integer: (f: string) => `The ${label(f)} field must be an integer.`,
  string: (f: string) => `The ${label(f)} field must be a string.`,
  between: (f: string, min: number, max: number) =>
    `The ${label(f)} field must be between ${min} and ${max}.`,
  maxChars: (f: string, max: number) => `The ${label(f)} field must not be greater than ${max} characters.`,
  taken: (f: string) => `The ${label(f)} has already been taken.`,
  invalidDomain: () => 'Invalid domain name.',
  planLimit: () => 'You have reached the maximum number of websites allowed by your plan.',
};

/** PHP's FILTER_VALIDATE_INT, which Laravel's `integer` rule uses: no leading zeros, optional sign. */
export function isPhpInteger(value: string): boolean {
  return /^[+-]?(0|[1-9]\d*)$/.test(value);
}

function add(errors: FieldErrors, field: string, message: string): void {
  errors[field] = [...(errors[field] ?? []), message];
}

/** `integer|between:min,max`; returns whether the value passed. */
function checkIntegerBetween(errors: FieldErrors, field: string, value: string, max: number): boolean {
  if (!isPhpInteger(value)) {
    add(errors, field, messages.integer(field));
    return false;
  }
  const n = Number(value);
  if (n < 0 || n > max) {
    add(errors, field, messages.between(field, 0, max));
    return false;
  }
  return true;
}

function checkPasswordLength(errors: FieldErrors, password: string | null | undefined): void {
  if (typeof password === 'string' && [...password].length > 128) {
    add(errors, 'password', messages.maxChars('password', 128));
  }
}

export interface StoreContext {
  isTaken(domain: string): boolean;
  atPlanLimit: boolean;
}

/** The store rules, on input whose domain is already canonicalised. */
export function validateStore(input: FormInput, context: StoreContext): FieldErrors {
  const errors: FieldErrors = {};
  const domain = input.domain;
  if (domain === null || domain === undefined || domain === '') {
    add(errors, 'domain', messages.required('domain'));
  } else {
    // Laravel runs every remaining rule of an attribute once `required` passed.
    if ([...domain].length > 255) add(errors, 'domain', messages.maxChars('domain', 255));
    if (!serviceAcceptsDomain(domain)) add(errors, 'domain', messages.invalidDomain());
    if (context.isTaken(domain)) add(errors, 'domain', messages.taken('domain'));
    if (context.atPlanLimit) add(errors, 'domain', messages.planLimit());
  }
  for (const [field, max] of [
    ['privacy', 2],
    ['email', 1],
    ['exclude_bots', 1],
  ] as const) {
    const value = input[field];
    if (value !== null && value !== undefined) checkIntegerBetween(errors, field, value, max);
  }
  const privacy = input.privacy;
  if (privacy !== null && privacy !== undefined && Number(privacy) === 2 && !input.password) {
    add(errors, 'password', messages.required('password'));
  }
  checkPasswordLength(errors, input.password);
  return errors;
}

/** What the update rules need to know about the record being changed, when it exists. */
export interface UpdateContext {
  privacy: number | null;
  hasPassword: boolean;
}

export function validateUpdate(input: FormInput, existing: UpdateContext | undefined): FieldErrors {
  const errors: FieldErrors = {};
  let privacyValid = false;
  if ('privacy' in input) {
    if (input.privacy === null) add(errors, 'privacy', messages.required('privacy'));
    else privacyValid = checkIntegerBetween(errors, 'privacy', input.privacy ?? '', 2);
  }
  if ('exclude_bots' in input) {
    if (input.exclude_bots === null) add(errors, 'exclude_bots', messages.integer('exclude_bots'));
    else checkIntegerBetween(errors, 'exclude_bots', input.exclude_bots ?? '', 1);
  }
  if ('email' in input && input.email !== null && input.email !== undefined) {
    checkIntegerBetween(errors, 'email', input.email, 1);
  }
  checkUpdatePassword(errors, input, existing, privacyValid);
  return errors;
}

function checkUpdatePassword(
  errors: FieldErrors,
  input: FormInput,
  existing: UpdateContext | undefined,
  privacyValid: boolean,
): void {
  const privacyInput = input.privacy;
  const clearsAllowed = privacyInput === '0' || privacyInput === '1';
  if ('password' in input && input.password === null && !clearsAllowed) {
    // The service only accepts a null password together with privacy 0 or 1.
    add(errors, 'password', messages.string('password'));
    return;
  }
  checkPasswordLength(errors, input.password);
  // Stricter than the service, on purpose: it would accept privacy 2 without any password set,
  // leaving a protected page nobody can open; a client must never rely on that.
  if (existing === undefined || errors.password) return;
  const privacy = privacyValid ? Number(privacyInput) : existing.privacy;
  const hasPassword = 'password' in input ? Boolean(input.password) : existing.hasPassword;
  if (privacy === 2 && !hasPassword) add(errors, 'password', messages.required('password'));
}

/** Laravel's summary message: the first error, plus how many more there are. */
export function summarizeErrors(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more error${more === 1 ? '' : 's'})`;
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
