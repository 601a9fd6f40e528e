import { shownUrl } from '../model/index.js';
import { AuthError, ServiceError } from './errors.js';

/** An answer as it came, before it is decoded. */
export interface RawAnswer {
  method: string;
  path: string;
  base: string;
  status: number;
  text: string;
  /** The Location of a redirect. */
  location: string | undefined;
  /** A 429 that asked for a longer wait than websites-sync waits: why it was not retried. */
  throttled?: string | undefined;
  /** An earlier attempt went out and its answer was lost (attempts.ts AnswerWatch). */
  afterLostAnswer?: boolean;
}

export function headerOf(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Redirects are never followed (the key would travel to wherever they point). Only one to a login page
 * means the key was refused; any other (a failed validation sent back, a moved base URL) says where it
 * pointed, so the operator can tell a wrong base URL or a proxy that strips `Accept` from a bad key.
 */
export function redirectError(answer: RawAnswer): ServiceError {
  const { method, path, base, status, location } = answer;
  const where = { method, path, status };
  // The Location is the service's (or a proxy's) to write: one that does not parse is shown, masked.
  const target =
    location !== undefined && URL.canParse(location, `${base}${path}`)
      ? new URL(location, `${base}${path}`)
      : undefined;
  if (target && /\/login\/?$/.test(target.pathname) && target.origin === base) {
    return new AuthError(
      `${base} redirected ${method} ${path} to its login page (${status}): the API key was not accepted (or a proxy removed the "Accept: application/json" header).`,
      where,
    );
  }
  return new ServiceError(
    `${method} ${path}: the service answered ${status} redirecting to ${whereTo(location, target, base)}; redirects are not followed, so the API key never leaves ${base}: check --base-url, or a proxy between you and the service`,
    where,
  );
}

/** A redirect's target as a person reads it: where it points, and whether that is another host. */
function whereTo(location: string | undefined, target: URL | undefined, base: string): string {
  if (location === undefined) return '(no Location)';
  if (target === undefined) return `${shownUrl(location)} (not a valid address)`;
  if (target.origin === 'null') return `${shownUrl(target.href)} (not a web address)`;
  const elsewhere = target.origin !== base ? ` on another host (${target.origin})` : '';
  return `${shownUrl(target.href)}${elsewhere}`;
}
